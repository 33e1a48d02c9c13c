// The hand-written part of the concept map (src/text/concept-data.json, built by build.mjs): the
// concepts of everyday software work, each with the situation it names in English and Korean and the
// words that signal it. `strong` words (tool, library and service names, specific nouns) say the text is
// about the concept on their own; `weak` words (generic verbs and nouns) only together with another
// signal. `koStrong` / `koWeak`: Korean words, matched at the start of a Korean word so that particles
// and endings (배포를, 배포해줘) still match. `en` / `ko`: the situation, written as a memory's cue. Multi-word entries match consecutive words ("time zone").
// Written from the vocabulary of the tools' own documentation; extend it when a family is missing.

export const CONCEPTS = [
	{
		id: "deps",
		en: "adding, removing or upgrading a dependency; installing packages",
		ko: "의존성 추가·업그레이드, 패키지 설치",
		strong: `dependency dependencies deps devdependency devdependencies lockfile lockfiles npm pnpm yarn bun npx pnpx bunx pip pip3 pipx pipenv
			poetry uv conda mamba cargo bundler gemfile composer nuget renovate dependabot package.json package-lock.json pnpm-lock.yaml yarn.lock
			requirements.txt pyproject pyproject.toml go.mod go.sum cargo.toml gradle maven vendoring node_modules site-packages virtualenv venv`,
		weak: "package packages install installs installed installing uninstall reinstall upgrade upgrades upgrading bump bumping library libraries version versions",
		koStrong: "의존성 패키지 업그레이드 라이브러리 디펜던시",
		koWeak: "설치 버전업",
	},
	{
		id: "dates",
		en: "showing, parsing or storing dates, times and time zones",
		ko: "날짜·시간·타임존 표시와 저장",
		strong: `date dates datetime datetimes timezone timezones time-zone tz utc gmt timestamp timestamps iso8601 dayjs moment moment-timezone luxon
			date-fns date-fns-tz chrono pytz pendulum zoneinfo dateutil tzdata strftime strptime epoch locale-time`,
		weak: "time times calendar day days month week weekly daily midnight hour hours clock local",
		koStrong: "날짜 시간대 타임존 타임스탬프 달력",
		koWeak: "시각",
	},
	{
		id: "logging",
		en: "logging and log output",
		ko: "로그 남기기와 로깅",
		strong:
			"log logs logging logger loggers pino winston bunyan structlog loguru log4j slf4j logback zap zerolog logrus console.log syslog loglevel",
		weak: "print prints debug verbose trace stdout stderr",
		koStrong: "로그 로깅 로거",
	},
	{
		id: "monitoring",
		en: "monitoring, metrics, dashboards and alerts",
		ko: "모니터링·메트릭·대시보드·알람",
		strong: `monitoring metrics metric dashboard dashboards grafana datadog prometheus sentry newrelic new-relic honeycomb opentelemetry otel tracing
			apm kibana splunk cloudwatch alertmanager uptime statuspage`,
		weak: "alert alerts alerting trace traces observe observability graph graphs",
		koStrong: "모니터링 메트릭 대시보드 알람 그라파나",
		koWeak: "지표",
	},
	{
		id: "styling",
		en: "styling the UI: CSS, themes, colours and layout",
		ko: "UI 스타일링: CSS·테마·색상·레이아웃",
		strong: `css scss sass less tailwind tailwindcss styled-components emotion stylesheet stylesheets theme theming postcss css-modules
			chakra mui material-ui bootstrap nativewind stylesheet.create`,
		weak: "style styles styling color colors colour colours font fonts layout padding margin spacing dark light responsive",
		koStrong: "스타일 테마 다크모드",
		koWeak: "색상 레이아웃 폰트",
	},
	{
		id: "state",
		en: "managing client state and data fetching on the client",
		ko: "클라이언트 상태 관리와 데이터 페칭",
		strong: "redux zustand mobx recoil jotai valtio xstate react-query tanstack swr apollo pinia vuex ngrx context-api usestate usereducer",
		weak: "state store stores reducer reducers selector selectors cache",
		koStrong: "상태관리",
		koWeak: "상태 스토어",
	},
	{
		id: "migrations",
		en: "changing the database schema: migrations, tables and columns",
		ko: "DB 스키마 변경: 마이그레이션·테이블·컬럼",
		strong: `migration migrations migrate alembic flyway liquibase prisma drizzle knex typeorm sequelize django-migrations makemigrations
			schema.prisma alter ddl`,
		weak: "schema schemas table tables column columns index indexes constraint rollback",
		koStrong: "마이그레이션 스키마",
		koWeak: "테이블 컬럼 인덱스",
	},
	{
		id: "database",
		en: "querying and using the database",
		ko: "데이터베이스 조회와 사용",
		strong: `database databases db postgres postgresql psql mysql mariadb sqlite mongodb mongo dynamodb cassandra sql orm sqlalchemy
			activerecord pgbouncer supabase planetscale neon cockroachdb clickhouse`,
		weak: "query queries transaction transactions row rows join joins replica connection pool",
		koStrong: "데이터베이스 디비 쿼리 트랜잭션",
		koWeak: "커넥션",
	},
	{
		id: "secrets",
		en: "handling secrets, credentials, API keys and environment variables",
		ko: "시크릿·자격 증명·API 키·환경 변수 다루기",
		strong: `secret secrets credential credentials apikey api-key api-keys password passwords vault doppler 1password ssm kms dotenv .env
			env-vars envvars secrets-manager sops keychain`,
		weak: "token tokens key keys env environment variable variables config",
		koStrong: "시크릿 비밀번호 자격증명 환경변수 비밀키 인증키",
		koWeak: "토큰",
	},
	{
		id: "incidents",
		en: "incidents, outages and on-call paging",
		ko: "장애·아웃티지 대응과 온콜",
		strong:
			"incident incidents outage outages on-call oncall pagerduty opsgenie postmortem postmortems sev1 sev2 sev3 war-room runbook runbooks",
		weak: "page paging escalate escalation down downtime pager",
		koStrong: "장애 온콜 당직 포스트모템 런북 긴급",
	},
	{
		id: "storage",
		en: "uploading and storing files: buckets, object storage, CDN",
		ko: "파일 업로드와 저장: 버킷·오브젝트 스토리지·CDN",
		strong: "upload uploads uploading uploader s3 bucket buckets r2 gcs blob blobs presigned multipart cloudfront cdn minio object-storage",
		weak: "file files storage attachment attachments image images download downloads",
		koStrong: "업로드 버킷 스토리지 첨부파일",
		koWeak: "파일",
	},
	{
		id: "tests",
		en: "writing and running tests",
		ko: "테스트 작성과 실행",
		strong: `test tests testing spec specs jest vitest mocha chai jasmine pytest unittest nose cypress playwright puppeteer selenium
			testing-library rtl msw fixture fixtures mock mocks mocking stub stubs snapshot snapshots e2e tdd coverage flaky rspec minitest`,
		weak: "assert assertion assertions suite cases",
		koStrong: "테스트 단위테스트 통합테스트 목업 픽스처 커버리지",
	},
	{
		id: "ci",
		en: "the CI pipeline and its checks",
		ko: "CI 파이프라인과 체크",
		strong: "ci github-actions circleci jenkins buildkite travis gitlab-ci workflow workflows .github pre-commit husky lint-staged",
		weak: "pipeline pipelines check checks build builds job green red",
		koStrong: "파이프라인 워크플로",
		koWeak: "빌드",
	},
	{
		id: "releases",
		en: "deploying and releasing: environments, rollouts and rollbacks",
		ko: "배포와 릴리스: 환경·롤아웃·롤백",
		strong: `deploy deploys deployed deploying deployment deployments release releases releasing rollout rollouts rollback rollbacks staging
			production prod canary changelog semantic-release helm argocd argo vercel netlify heroku fly.io hotfix freeze`,
		weak: "ship shipping env environment environments tag tags version live",
		koStrong: "배포 릴리스 릴리즈 롤백 스테이징 프로덕션 핫픽스 출시",
		koWeak: "운영",
	},
	{
		id: "git",
		en: "committing and branching: commit messages, branches, pull requests",
		ko: "커밋과 브랜치: 커밋 메시지·브랜치·PR",
		strong:
			"git commit commits committing branch branches rebase squash cherry-pick pr prs pull-request merge merges merged gitflow conventional-commits",
		weak: "message messages history push main master",
		koStrong: "커밋 브랜치 머지 리베이스 풀리퀘",
	},
	{
		id: "review",
		en: "code review and who approves changes",
		ko: "코드 리뷰와 승인",
		strong: "review reviews reviewer reviewers approve approval approvals codeowners code-review",
		weak: "owner owners owns sign-off",
		koStrong: "리뷰 리뷰어 승인 코드리뷰",
	},
	{
		id: "formatting",
		en: "formatting and linting code",
		ko: "코드 포맷팅과 린트",
		strong:
			"format formatter formatting prettier eslint biome black ruff flake8 isort pylint mypy gofmt goimports rustfmt clippy rubocop stylelint lint linter linting",
		weak: "indent indentation semicolons quotes tabs spaces whitespace",
		koStrong: "포맷 포매터 린트 린터",
		koWeak: "정렬",
	},
	{
		id: "http",
		en: "calling HTTP APIs: clients, retries and timeouts",
		ko: "HTTP API 호출: 클라이언트·재시도·타임아웃",
		strong: `http https api apis endpoint endpoints axios fetch got ky superagent requests httpx aiohttp urllib okhttp retrofit graphql grpc rest
			webhook webhooks retry retries backoff timeout timeouts rate-limit ratelimit`,
		weak: "request requests response responses client call calls status header headers",
		koStrong: "API 엔드포인트 재시도 타임아웃 웹훅",
		koWeak: "요청",
	},
	{
		id: "email",
		en: "sending email and notifications",
		ko: "이메일과 알림 보내기",
		strong: `email emails e-mail mail mailer mailers smtp sendgrid postmark ses mailgun resend mailchimp newsletter newsletters twilio sms push
			notification notifications fcm apns onesignal`,
		weak: "send sender sending inbox template templates unsubscribe",
		koStrong: "이메일 푸시 문자",
		koWeak: "메일 알림",
	},
	{
		id: "payments",
		en: "payments, billing, invoices and refunds",
		ko: "결제·청구·인보이스·환불",
		strong:
			"payment payments stripe invoice invoices invoicing billing refund refunds charge charges subscription subscriptions checkout paypal adyen braintree tax vat",
		weak: "price prices pricing plan plans customer customers card cards currency amount",
		koStrong: "결제 환불 청구 구독 인보이스 요금",
	},
	{
		id: "auth",
		en: "authentication, sessions and permissions",
		ko: "인증·세션·권한",
		strong:
			"auth authentication authorization login logout signin sign-in signup sign-up oauth oidc sso saml jwt jwts rbac permission permissions 2fa mfa auth0 clerk cognito",
		weak: "session sessions role roles user users password cookie cookies",
		koStrong: "인증 로그인 권한 세션 회원가입",
	},
	{
		id: "jobs",
		en: "background jobs, queues and schedules",
		ko: "백그라운드 작업·큐·스케줄",
		strong: `queue queues job jobs worker workers cron crontab scheduler celery sidekiq bullmq bull rq resque airflow dag dags kafka rabbitmq
			sqs pubsub temporal nightly batch`,
		weak: "schedule scheduled schedules background async task tasks consumer producer",
		koStrong: "배치 크론 스케줄러 워커 야간",
	},
	{
		id: "caching",
		en: "caching and cache invalidation",
		ko: "캐싱과 캐시 무효화",
		strong: "cache caches caching cached redis memcached ttl invalidate invalidation varnish etag",
		weak: "stale warm evict",
		koStrong: "캐시 캐싱 레디스",
	},
	{
		id: "performance",
		en: "performance: slowness, latency and profiling",
		ko: "성능: 느림·지연·프로파일링",
		strong:
			"performance perf latency slow slowness profiling profiler profile bottleneck memory-leak oom throughput p95 p99 benchmark benchmarks",
		weak: "fast faster speed optimize optimise optimization heavy hang hangs",
		koStrong: "성능 느려 느림 지연 프로파일링 최적화 병목",
	},
	{
		id: "errors",
		en: "handling errors and exceptions",
		ko: "에러·예외 처리",
		strong: "error errors exception exceptions throw throws thrown catch try/catch traceback stacktrace stack-trace panic crash crashes",
		weak: "fail fails failed failure failing bug bugs broken wrong",
		koStrong: "예외 크래시",
		koWeak: "에러 오류 버그",
	},
	{
		id: "i18n",
		en: "translations and localisation",
		ko: "번역과 현지화",
		strong: "i18n l10n translation translations translate localization localisation locale locales i18next gettext intl",
		weak: "language languages copy strings",
		koStrong: "번역 다국어 현지화",
	},
	{
		id: "frontend",
		en: "building UI components and screens",
		ko: "UI 컴포넌트와 화면 만들기",
		strong: "component components react vue svelte angular nextjs next.js nuxt remix jsx tsx storybook modal dropdown button",
		weak: "ui page pages screen screens form forms view views render renders",
		koStrong: "컴포넌트 모달",
		koWeak: "화면 페이지 버튼",
	},
	{
		id: "mobile",
		en: "building and shipping the mobile app",
		ko: "모바일 앱 빌드와 배포",
		strong: "ios android expo eas xcode testflight app-store play-store simulator emulator react-native cocoapods fastlane gradle apk ipa",
		weak: "app apps device devices mobile phone build",
		koStrong: "안드로이드 아이폰",
		koWeak: "모바일",
	},
	{
		id: "infra",
		en: "infrastructure: containers, clusters and cloud resources",
		ko: "인프라: 컨테이너·클러스터·클라우드 리소스",
		strong: `docker dockerfile compose kubernetes k8s kubectl helm terraform pulumi cloudformation aws gcp azure eks gke ecs lambda ec2 vpc
			cluster clusters namespace namespaces pod pods node-pool nginx ingress`,
		weak: "server servers host hosts instance instances container containers infra infrastructure region",
		koStrong: "인프라 클러스터 컨테이너 쿠버네티스 도커",
		koWeak: "서버",
	},
	{
		id: "setup",
		en: "setting up a machine or access for someone: onboarding, laptops, VPN",
		ko: "개발 환경·접근 권한 세팅: 온보딩·노트북·VPN",
		strong: "onboarding onboard laptop laptops vpn ssh new-hire new-hires intern interns dotfiles homebrew brew devcontainer provisioning",
		weak: "setup set-up access machine account accounts join joins joined",
		koStrong: "온보딩 신입 인턴 노트북 세팅 입사",
		koWeak: "계정",
	},
	{
		id: "flags",
		en: "feature flags and gradual rollouts",
		ko: "피처 플래그와 점진 배포",
		strong: "feature-flag feature-flags flag flags launchdarkly unleash flagsmith growthbook split.io toggle toggles kill-switch",
		weak: "experiment experiments percentage gradual",
		koStrong: "플래그 피처플래그 토글",
	},
	{
		id: "docs",
		en: "writing documentation: README, wiki, ADRs",
		ko: "문서 작성: README·위키·ADR",
		strong: "docs documentation readme wiki confluence notion adr adrs docstring docstrings jsdoc typedoc mkdocs docusaurus",
		weak: "document documented comment comments",
		koStrong: "위키 문서화",
		koWeak: "문서",
	},
	{
		id: "data",
		en: "data pipelines, exports and reports",
		ko: "데이터 파이프라인·익스포트·리포트",
		strong:
			"etl elt export exports exporting spark pyspark dbt warehouse bigquery snowflake redshift databricks parquet csv report reports reporting pandas polars",
		weak: "data dataset datasets backfill pipeline",
		koStrong: "익스포트 내보내기 리포트 웨어하우스 적재",
		koWeak: "데이터",
	},
	{
		id: "validation",
		en: "validating input and typing data",
		ko: "입력 검증과 데이터 타입",
		strong: "validation validate validator validators zod yup joi ajv pydantic marshmallow class-validator valibot typebox json-schema",
		weak: "schema schemas input inputs type types typing typed",
		koStrong: "검증 유효성 밸리데이션",
	},
	{
		id: "security",
		en: "security: vulnerabilities, XSS, CSRF, audits",
		ko: "보안: 취약점·XSS·CSRF·감사",
		strong: "security vulnerability vulnerabilities cve xss csrf sqli injection cors csp audit snyk owasp encryption encrypt",
		weak: "sanitize sanitise escape escaping",
		koStrong: "취약점 암호화",
		koWeak: "보안",
	},
	{
		id: "answers",
		en: "how to answer the user: language, length and tone",
		ko: "답변 방식: 언어·길이·어조",
		strong: "answer answers reply replies respond korean english japanese emoji emojis tone verbose concise terse",
		weak: "explain explanation short brief language",
		koStrong: "답변 한국어 영어 존댓말 반말",
		koWeak: "대답 설명",
	},
	{
		id: "naming",
		en: "naming things and code conventions",
		ko: "이름 짓기와 코드 컨벤션",
		strong: "naming camelcase snake_case kebab-case pascalcase convention conventions prefix suffix",
		weak: "name names rename renaming variable variables",
		koStrong: "네이밍 컨벤션",
		koWeak: "이름",
	},
	{
		id: "ml",
		en: "training and serving machine-learning models",
		ko: "머신러닝 모델 학습과 서빙",
		strong:
			"ml training inference pytorch torch tensorflow keras mlflow wandb huggingface transformers gpu gpus cuda sklearn scikit-learn feature-store model-registry",
		weak: "model models train trained predict prediction predictions embedding embeddings",
		koStrong: "학습 추론 머신러닝 피처스토어 GPU",
		koWeak: "모델",
	},
	{
		id: "search",
		en: "search and indexing",
		ko: "검색과 인덱싱",
		strong: "search elasticsearch opensearch algolia meilisearch typesense solr full-text fulltext",
		weak: "index indexing query",
		koStrong: "인덱싱",
		koWeak: "검색",
	},
	{
		id: "analytics",
		en: "product analytics and event tracking",
		ko: "제품 분석과 이벤트 트래킹",
		strong: "analytics tracking segment amplitude mixpanel posthog ga4 google-analytics heap",
		weak: "event events funnel funnels",
		koStrong: "트래킹 퍼널",
		koWeak: "분석 이벤트",
	},
	{
		id: "accessibility",
		en: "accessibility of the UI",
		ko: "UI 접근성",
		strong: "accessibility a11y aria screen-reader screenreader wcag voiceover talkback contrast",
		weak: "label labels focus keyboard",
		koStrong: "접근성 스크린리더",
	},
];

/**
 * Well-known packages of registries other than npm, by name: each names "a dependency" when a prompt
 * mentions it. Picked by hand from the packages these ecosystems' own documentation and tutorials use
 * most (the npm list comes from download and dependent counts; see build.mjs).
 */
export const OTHER_REGISTRIES = {
	pypi: `requests numpy pandas scipy matplotlib seaborn django flask fastapi starlette uvicorn gunicorn celery sqlalchemy alembic pydantic
		pytest boto3 botocore httpx aiohttp beautifulsoup4 bs4 lxml pillow opencv-python scikit-learn sklearn torch tensorflow keras transformers
		jinja2 click typer rich tqdm pyyaml python-dotenv redis psycopg2 psycopg asyncpg pymongo black ruff mypy isort flake8 pylint poetry
		setuptools wheel twine tox nox hypothesis factory-boy faker freezegun pytz pendulum arrow dateutil python-dateutil marshmallow attrs
		orjson ujson msgpack grpcio protobuf kafka-python confluent-kafka pyspark polars pyarrow dask ray airflow apache-airflow dbt-core mlflow
		wandb huggingface-hub datasets tokenizers openai anthropic langchain llama-index structlog loguru sentry-sdk prometheus-client
		opentelemetry-api gevent eventlet twisted tornado sanic aiofiles paramiko fabric invoke ansible docker kubernetes google-cloud-storage
		google-cloud-bigquery snowflake-connector-python sqlmodel tortoise-orm peewee django-rest-framework djangorestframework drf-spectacular
		channels whitenoise stripe twilio sendgrid jwt pyjwt cryptography passlib bcrypt authlib oauthlib werkzeug itsdangerous playwright selenium
		locust responses pytest-mock pytest-asyncio coverage nbconvert jupyter notebook ipython xgboost lightgbm catboost statsmodels sympy networkx`,
	go: `gin echo fiber chi gorilla mux cobra viper zap zerolog logrus testify gomock sqlx gorm pgx ent grpc-go protobuf prometheus
		client_golang redis go-redis sarama kafka-go aws-sdk-go-v2 errgroup x/sync golang-migrate goose wire fx uber-go go-chi`,
	crates: `serde serde_json tokio anyhow thiserror clap reqwest hyper axum actix-web warp tracing tracing-subscriber log env_logger sqlx diesel
		sea-orm rand regex chrono time uuid rayon crossbeam futures async-trait bytes itertools once_cell lazy_static parking_lot dashmap
		tonic prost criterion proptest insta mockall wasm-bindgen`,
	rubygems: `rails rack sinatra puma sidekiq resque devise pundit cancancan rspec minitest capybara factory_bot faker rubocop pry byebug
		nokogiri httparty faraday activerecord sequel dry-rb hanami grape jbuilder kaminari pagy paperclip shrine carrierwave`,
};
