CREATE TABLE `session_chunks` (
	`project_id` text NOT NULL,
	`session_id` text NOT NULL,
	`first_seq` integer NOT NULL,
	`last_seq` integer NOT NULL,
	`object_key` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `session_id`, `first_seq`)
);
--> statement-breakpoint
CREATE TABLE `session_records` (
	`project_id` text NOT NULL,
	`session_id` text NOT NULL,
	`record_key` text NOT NULL,
	PRIMARY KEY(`project_id`, `session_id`, `record_key`)
);
--> statement-breakpoint
CREATE TABLE `session_writes` (
	`project_id` text NOT NULL,
	`session_id` text NOT NULL,
	`seq` integer NOT NULL,
	`memory_name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `session_writes_seq` ON `session_writes` (`project_id`,`session_id`,`seq`);--> statement-breakpoint
CREATE TABLE `sessions` (
	`project_id` text NOT NULL,
	`id` text NOT NULL,
	`user_id` text NOT NULL,
	`agent` text NOT NULL,
	`cwd` text,
	`branch` text,
	`started_at` text NOT NULL,
	`last_activity_at` text NOT NULL,
	`turns` integer DEFAULT 0 NOT NULL,
	`cursor` integer DEFAULT 0 NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`extraction_state` text DEFAULT 'idle' NOT NULL,
	`queued_at` text,
	`last_error` text,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `id`)
);
--> statement-breakpoint
CREATE INDEX `sessions_activity` ON `sessions` (`project_id`,`last_activity_at`);--> statement-breakpoint
CREATE INDEX `sessions_pending` ON `sessions` (`last_activity_at`) WHERE `cursor` < `turns`;--> statement-breakpoint
CREATE TABLE `stage1_outputs` (
	`project_id` text NOT NULL,
	`session_id` text NOT NULL,
	`from_seq` integer NOT NULL,
	`to_seq` integer NOT NULL,
	`user_id` text NOT NULL,
	`extractor` text NOT NULL,
	`raw_memory` text NOT NULL,
	`summary` text NOT NULL,
	`candidates_json` text NOT NULL,
	`created_at` text NOT NULL,
	`consolidated_at` text,
	PRIMARY KEY(`project_id`, `session_id`, `from_seq`)
);
--> statement-breakpoint
CREATE INDEX `stage1_pending` ON `stage1_outputs` (`project_id`,`consolidated_at`);