import { describe, expect, it } from "vitest";
import { syntheticSamples } from "../bench/secret-samples";
import { entropy } from "../src/security/secret-heuristics";
import { POLICY_RULES } from "../src/security/secret-policy";
import { findSecrets, redactSecrets, ruleNames } from "../src/security/secrets";

// One credential per family, in the format its provider issues, with a random (never live) body.
// Values are joined from parts so this file does not itself hold whole tokens for scanners to flag.
const j = (...parts: string[]) => parts.join("");

/**
 * A family's sample and the rule (an id of src/security/secret-rules.ts or secret-policy.ts) that must
 * find it; `also` lists the other rules that report it too, so the rules found are exactly these.
 */
type Family = [rule: string, text: string, also?: string[]];

const FAMILIES: Record<string, Family> = {
	// What the policy adds (src/security/secret-policy.ts): formats providers used before, values off the
	// current format behind a provider's prefix, documented examples in a real format, a private-key
	// header alone, JWTs unsigned or split by spaces or a line break.
	"elided key block": ["private-key-header", "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----"],
	"private key header alone": ["private-key-header", "-----BEGIN OPENSSH PRIVATE KEY-----"],
	"private key cut after its header": ["private-key-header", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIB"],
	"aws documented example key id": ["provider-prefix", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE"],
	"slack legacy session token": ["provider-prefix", j("xoxs-", "4802-1297-", "9f8e7d6c5b4a39281706")],
	"slack legacy refresh token": ["provider-prefix", j("xoxr-", "51-62-", "a1b2c3d4e5f6a7b8c9d0")],
	"github token off format": ["provider-prefix", j("ghp_", "Ab1Cd2Ef3Gh4")],
	"unsigned jwt": ["jwt-segments", j("eyJhbGciOiJub25lIn0", ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ")],
	"jwt split by spaces": [
		"jwt-segments",
		j("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9", ". eyJzdWIiOiIxMjM0NTY3ODkwIn0", " . dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
	],
	"slack bot token": ["slack-token", j("xoxb-", "720966542870-8229710282251-KtP3skqoO6cD6RVAU5KhVrWm")],
	"slack user token": ["slack-token", j("xoxp-", "765425987471-842924741166-8737319768633-b6c29163d00d68df6db75d0c3f7eb934")],
	"slack workspace access token": ["slack-token", j("xoxa-", "2-102087233552-613779044351-1qLrrlIIrEJEkX0GBvc3LRaMsj2KM1")],
	"slack refresh token": ["slack-token", j("xoxr-", "997627113486-1469624207057-jZK3I8JU6brOqOWfGSh9r1yPx4Nv")],
	"slack session token": [
		"slack-token",
		j("xoxs-", "54027176251-221332905997-166284809787-214e69886dd9078d3fe0a0887bee1afbfa45289e0082c358"),
	],
	"slack config token": [
		"slack-token",
		j(
			"xoxe.xoxp-1-",
			"7hIkrKF3HLRhSoAs0Fh5eeG14tiCPOdO3jd61RZTpEhMi1G6Pd96MJtWNXV9AlQMLcevLV5l2UG3OiAcFcH95AmWbWj5zBdOV1W034QobyOd0Hn450ITdef30Uu0pbdEvSs53Fp2K77r9rfap6vgyQlzDWmG4IXyf0O",
		),
	],
	"slack config refresh token": [
		"slack-token",
		j(
			"xoxe-1-",
			"xmcR5afHmuGqsQBTiZa9xRtpTX9he0Mvicyrv7G0xDZqzAFtmCftN4WOKz8bwEP9CKWaQ5hUsgFReOgaDsGJnWW6RRo2HCXLhW7aKVwBG7waPvzNr6dQFetvD5J1n7EwpfLrx0C0kaDj1l46ZH",
		),
	],
	"slack app token": [
		"slack-app-token",
		j("xapp-1-", "AB28VRHQKS0-6760759809110-0183873de573ecad06b0974afa74193304885ee914f149f83b5ae08e9df0b3f1"),
	],
	"slack webhook": ["slack-webhook", j("https://hooks.slack", ".com/services/THBK6EWVCGD/BKEL4UFOVNU/Waycy6u15mG6SCC7USq9Kiuk")],
	"discord bot token": ["discord-bot-token", j("NTQwNzY5NTMzNTk0ODk3ODE0OQ", ".t6y2yt.iICPdIyMFB9ATDSAann-BwYC0n38gkp-fAfvF0")],
	"discord bot token after a dot, newer signature": [
		"discord-bot-token",
		j("cfg.MTM3MjkxNjAxMDQ3MTIyMTQ", ".dJ_lHE5.0rX2jgxhYnGPR0WePf_kqOQb5TgEKoeQNFaIhA-J-"),
	],
	"discord bot token by shape, its first part no user id": [
		"discord-bot-token",
		j("Xq7Rb2Lm9Tz4Kw1Pv8Nc3Hd6Fj", ".Gx5t2K.", "p9Wq2Zr7Lk4Ty1Vb6Nm3Hc8Jd5Fs0Ax"),
	],
	"discord bot token by shape, shortest parts": [
		"discord-bot-token",
		j("a8F3kL0pQ7zX2mN5vB9cR4tY", ".H1j6Wd.", "E2rT7uI0oP5aS8dF3gH6jK9lZ4x"),
	],
	"discord mfa user token": [
		"discord-mfa-token",
		j("mfa.", "yOvbFGSYJBk_DZ40LXScVZJWBtVEaTuUsF2PxFluEDY4PLlsQs47ItfOJjqFakPUG2OYJaxo9Nm1GPJwJVpH"),
	],
	"discord webhook": [
		"discord-webhook",
		j("https://discord.com/api/webhooks/", "8392707938022531838/LpkmfcAKYXI-JuLOqCFX0oLJGnDJcyPC1VymjQviVlqkT4cst4lbzwM6I6x89QYHXRRH"),
	],
	"rsa private key": [
		"private-key",
		j(
			"-----BEGIN RSA PRIVATE KEY-----\nBUAyUv8gePaJ08DnpU0dMTfqUoYdWyFftrvbqAEikj8nfrxLcqh5t/8+GxDNsuTg\n4pPUlqRTSXAOi2EgJghp4LKy6fyqyvDFNsJJ3U+YMhgJYjqyvgXCwhFO93UIF23e\nfw3z8BJPRcxH+Wm98RflCSW3yGxrfPH5ST32cBM0sMLgD5Wm9cLLTnMdRH6Zm5yW\nw+Q+nYw3zNCi4o3nBh0xWxc0X0+DaNOnY8IN4CaMWbcTFrXu91a0RSg7MS6Z8+TB\nQ2oWVRMFpZlLqsVwBAfe5y41rIEM/i8VNUPl9SmEEoWL2HyY5fTbryObD3b5574y\nRpvBpK0ZrXOlf/UkctmNhZxO/BDqasAR24CLmZfX/6m2h5Woh/tA0UTbBIvsi0dz\nlLU/Te/p6OSYPqsh27DZ6uy+3eqS021CYlvChzBnSd3qyuBuj4tCFcwnKGKovHjb\nG8A3x+kLvLwX4AClP5Hqnk0WT8RR2X7ufu5X2Hev+xQ9b6fWtyxAVv9HUmqd52bh\nXNaaitBo4pQG8Xw7pqVYfQsEGHSgTHQ1iyp9jwva6gF+NWCoTuxTVexuvScujQeM\n/hhu04UMgPJWyRWYomlIDVkd4w97WFJf4yHrCkkLBUVcRq0YDzpgMAj9PrJ0Wvfk\n3RnPB6kFiqpGg4+Oj0VZ1Zl++YQDjTynl4AG77hy484CZehX18msmJUQMc/M2Cio\neQrboou1GqMOh+6kd/gun8h34qI46XXANaeT6TnMHfVMcnF0KanBdQ0nTXGww1F0\ntpfATHp7MNqo++fEEIfGmZH4HP5hAE\n-----END RSA PRIVATE KEY-----",
		),
	],
	"pkcs8 private key": [
		"private-key",
		j(
			"-----BEGIN PRIVATE KEY-----\n2MSApxzI8Au7JAfy/WYzaNRt5GbvO21GrrCUqdDkTQ/5mYSxKcHZ08fXK+j9bgxC\nHggHb9BvCxOJ0w9WAG8tLtE0XKqTD2QVn0PhL9tnQfmBRHo5mUgj24hZf8VdLHCi\nk13pLUUBVo8qdNWI+JLyKgNYhqJRsjsiUgyZs+DXsH7x2iZ7ydV1qOT5bJ093y5b\n2tQmJDt73QKcc61rS7GC4NVqdfbXuzrmbS7GCKYTTD6+n1Adnaf7BuuaYFohPDGR\n7jcjt2gdPMXgaab5O858TXDoK6Kx80BxivK10tvFlLANawHP1lLdFz6KzYYjUeXA\nYPxmQ83Ex0rK+iakz0K3EKl+uyLMox/cR0FJrJuZqWH2rqE89g8fQrs/6pFUh6WA\nEXlWJNRryBjSpiWwYvq0r2Fn+f2LMMMjHRGsW7h+t2ej2jRxIz9/8gXQqyw60GW3\nwabFnSnz+HcFJpyEa/8RPAp5mAph3+zPmphvHol/t7l2NFbkzQndd4D8hTTUhln9\nSol4GJ3uTN0GAww22065ouV2iCI/BYUtrCZpOkCgFiteALDD1A/w4Dog2IMGp8Ts\nJWOOIBFu5LAQ7+hCi17Zg2WXkC3t8/86lAWXEN1IxWWT1+aR3dunMl20/PPstgrX\nIvbGEl3VMibgJK0q87rn0ZkSfU9rAK7Kgwd37+5dCgjw3y3tL34ycTjtUaC2xfAL\nZAK9UUFNWehBxqx6GGJ5QfhneYm84feTVhm9MQsifZDo/qCKotoAg7toPsXN/dZe\nQEu9XTx15SWW6skYBjUO209myyaPPu\n-----END PRIVATE KEY-----",
		),
	],
	"encrypted pkcs8 private key": [
		"private-key",
		j(
			"-----BEGIN ENCRYPTED PRIVATE KEY-----\npLrHlIe7Re0aHQxMSKFfG03b5pXv1vuBh+LEmdw3eKvVK1l5Wj0PG1AcwYjPEnS2\ndFN54ifoM9KfXJaazoHe/kO5qvSM7pUGcE9zRsYt40KJoiYDsnHf4IfLMN+VLu0W\nPWWcLWXfHWs7//wzSYgKlY1c+jU9PAhDeivf4LHcw8Ta/6LdaO9bS+vO2K4ZfA+9\nUP28TBE4TRvFoaIWwdB7bw+O6fOFdppl5IcXkd6tY0d16+WjwzRq5OnBmQ3C+n1O\njpiOmNc6w3m6ZUpJcR05aXDWLXvQcPolaccB+u4mMhzfkJi/KzR8VdH3F0pFS123\n0uk+AWfX0h7qNFCbJXdnaNk3NNokiSme8DLeGN8293ufDSgXbIOYaTuUjh0Ls3pg\nan+Fu+Xvt5h04BB/geTJ5XlI2wV8d/hFCjFEuGQjFXxPN9WzMTonVtfiFkk7V+tP\nCzlsGIype6vqSnINH0V66/Uj1x5zqhuTNf6W7JMnrgBYfTzASiIel+ImL8+Sh5t/\nt7AuGUjVAs47+xmqSKtIX/dMj7yRWrVqfO/b+FmCGPapFG9vzdWEg88fCy7o9aQY\ny7RS6XZL3/moWU/aUt4o/ZIajUXZeKfmyFqcl9LlzWnImWeSOqeVBTeFnn5MZwSO\nv+ZSJ4I0HswQmmtjTbihTBDyNrd3hd4rGHfvr6SYzczzrhg4xKsPd9DoXNoE68ml\n1ik1GzXQG9m9+eYmohH6AvK+UFo5ejdRSi7qfd5/6nu7R6I7J/+rKvNbE0/tmknQ\nPzBqIDgp2sx0vOQHlmmoE7xdnW804S\n-----END ENCRYPTED PRIVATE KEY-----",
		),
	],
	"legacy encrypted rsa key": [
		"private-key",
		j(
			"-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,AD53FFB1DB4436B2CE8C3F794282B5A7\n\n0+vWkD1pNw5nD4sr4rcVUZISDKUqQ5pCmuiAfKI8qvVrlPip4DZ6HsVag3hQXsTb\nLub2f79sP5240pvf2UcGm7YqW6IqsgkGLbsRg7SZIveta1lfGUPIyguIePjMvuEC\n8gDe7TJRPz0u8k69QpC8AQS92xJPXloDURH5s0L/Bno+mUWG1QDP62eTqJTdkG1d\n3pzb5/p7NP7mBdOvEfnT5NK9G2Qx60OsrHJasV8f8ZEfqj1XElQvLdDYAXmG2V1n\n9yqh5UaEgZrscNjGsji35kz8TeLduwSP1Gbxj4qYM9sjDe/E2GdJv1aM4oH2kThH\n8pYlBGV8E4JUOLhIuqHM0f8+hELyyS2hTgm6743l1gb5vQfcQw0TrDgxMzWswv3n\nw7bK2M9LozwxJojBAbHHSgDk2C0x9nQz+ox0zgmqMlMJ5JLXwRMfmImfYDVLwfjE\n1lsCHzvduNhcDvamb5r5JfX1zKVRu0qAPBIqB5Q7ZmdseddlkZaqHioBV2PoCqtc\nEYhijY/1qV1M8p9WbNc0kHJF3f09m9zKNpwyp6wKSC95fQc6EefXxyI0ES6zoTMa\nNOjArUcjGfT0jca3WMaxiPwNsK6clSuqHcqWphx18vJSy1myyXYtwZMNnM2+seWw\n+y1xCBiTKYaz5xNxGpN5O0voc/TJ7T\n-----END RSA PRIVATE KEY-----",
		),
	],
	"ec private key": [
		"private-key",
		j(
			"-----BEGIN EC PRIVATE KEY-----\n3y/7BQ0SB7pQ3k/GRiIMNiCUGN3t9PmQGBb9Gyua9I6BgjDHNTPDy4uiujoPAAUL\nnnYL3ADYcEU62wbOaPXzfpBOD1u1xbu9xVEpuj2h7xMiemEIEbS1YhQV0Q6MQA6v\nLXfF/ctaJ9UeZWE+CBxIZ4tIUc0HVSBmHMC8iInh/dmaHZyNNwYCqI3RTZ7WJ8+X\n7F7b2ImrUu3CAJqmC7HGaQ3h4mIzCT\n-----END EC PRIVATE KEY-----",
		),
	],
	"dsa private key": [
		"private-key",
		j(
			"-----BEGIN DSA PRIVATE KEY-----\n+xuKvyvMRE5BsdcRlsRzZ9HgCIe5RAGhiC9HjA+J6W40PyGtmdmKEsYrdhRRqewV\ndFuhNuTiWnffD8s4Xfkuze10BzdYcPH4x4FjhF2Pj/UVX7F7krSHTh+JVMsOOgNn\nKZaTS7TeUV0c9dsQmccjuOJFWDjF9RXOrBlLc4gfXdajiZnABgTH1T1hOiRMZgN6\nGvmC/vdKY7n4/KwD2NFlNyjj43A1jRrJ9qY5ZJBLLhRkfbqj9MYuJvBSCfVJuySl\nXJvHSb1bC8WoRWJ8B8+3QjHaa0ALjDujUr/UB3ykclQpEAlU+Vlng2U+d4G0ByW7\n1xUUJXfXsmpaknUR98Zwv7LaMFyhU14+mCq5u84o2mwkebfQAu4OzsihTB0MfTQm\nwlqVr63YCxZc/QvX4EWluslMMFzLYejt2BLoxjLswidYb+nA0Ahzen21N85lo3Ca\nvefQRrUr1dVxVvlesLmBBtnyzoqI+k4ZvTWDczAwVdkwLtEQcs1Jfv3nd6dwgPj9\nCv4f3tJXNdjuILn7nIxmMMFuyPY/+WyodOPoSO4IFHVOP/E6s33DSqGvkzhNZ2vA\nHO+OUTcbXmEyxVCOwS2mjRqzUNBVlah/fMJbbaQd96I/8/vtGH+Ri40WmsERNBOk\n0d8kF2VZnaV+0yeZ9VBs17WKG2N7Tp\n-----END DSA PRIVATE KEY-----",
		),
	],
	"openssh private key": [
		"private-key",
		j(
			"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAAkbJOx9oK8oTsCA0X39kayLxMi2qQ07seRZSppYzJhMhTRS\n7x/zQzVZzx2X9Sp68puHLQshyV2/8iLqdKQe+pjHmBO9NvTbYFLIBcOsrDj/kovCsk/d1J\n-----END OPENSSH PRIVATE KEY-----",
		),
	],
	"pgp private key block": [
		"private-key",
		j(
			"-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nfb0kooXExSlGZ9yB1z8+OpWfqTxllZDl1/cBfbT4/yUaMLVXxsqOngCqStcCH3HW\n78pa80Z4BKF7WPy5gl1AsvwntseEnaaDnFFOPMoFfCMiK4ZY7iugIZSPO0NsDYZK\nHcZmTRELJcBxUP1sOmxwtyy2pz+MYcUAso1GTyoqYPKG+4DrqYfBA6qj6H57Uffv\nuqicNyrgbnd/X9wWzi92e/cNy7zbJ2A1OyEUdpwRGSm4If5Vl9puQIzbLZWXTdVJ\nAIRCn2l2VweCgMWoS8r/o2e5adE76qMuQJ+C2LNY6bfJvVo+NKwbTHkuoomPBOmp\nWi+9Z9iOGirlJfxnBGn7FyYocbZmGssRCbHptNr5J9Eo9mKX/cc5CutM/P79BiiB\nYLqpYA1K32cwqzBq0OHJobC6qsKaGW3LUBD5MdF53G2ToKx24tFfxhzVhjLVaDiU\n30lHvXvraPUj5fxQfPQsbz9kPvAG1N6gG1rhkeHweUlc0YBAh6v+vrS9NcdFd8va\nBQ1aeEw9XnXnfSOLR7Z1vauTDhv81YUGIq2S3MacUEUs+OHGk+Oj7Hkdqm92O3FW\nnIHR8oANd+E53L3DIoHB6FKRu31hn0dgC+MaFH/QSrKsq0X8ti6Q9uZCA6R0g5oE\nWWeAhYvaaPXBrATIefzX/lqhRODSZbEqLYUTCX6Gqsa8ZJIGoU/YZ3YUKqZHlMTj\nu6rPUlPldwGr6mrvIFcPEntPENObbIzVeaf9NQNoHkrhYgPrlg9/99nXGmtBRtvp\ngEdIrUGacqYTunrMmw5JMsJ77me2qb\n-----END PGP PRIVATE KEY BLOCK-----",
		),
	],
	"private key without END": [
		"private-key",
		j("-----BEGIN RSA PRIVATE KEY-----\njl+JAkW0qWchdq1+IcE3tQyDS8vKOK16HXQwX/wDTd2okmhOfYWui+vZrRBF87Sk\nUihPWkFl8HcwWaX1o7FGaRibB2/T9Q"),
	],
	jwt: [
		"jwt",
		j(
			"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
			".eyJzdWIiOiIzNjM4Mzk2NTYiLCJpYXQiOjE3MTcwMDAwMDAsImV4cCI6MTcxNzAwMzYwMH0.oAAHy3uFuZ8uajZsTjGWetqUbBPyogXb-0jnWKusKmF",
		),
	],
	"jwt split across lines": [
		"jwt",
		j(
			"eyJhbGciOiJSUzI1NiIs",
			"\n  InR5cCI6IkpXVCJ9.\n  eyJzdWIiOiI2MTgxOTQwODciLCJpYXQiOjE3MTcwMDAwMDAsImV4cCI6MTcxNzAwMzYwMH0.\n  Tpeui0i-54Pi_ISg099ea0Qo7RCLCAZefJTo0T0BxbJzKuN8cjepB1yDk0gZ9K_dEP5gj9vx_KTcNGBlcgT0ns7RzgsBek_bPbVWkmB5qNckkvEy8ai6kZw15WB342_quOeO89alfmRrjtTvkbBBbucU_OLgtPyaC3xdMm_lPy\n  ADaPambujRGziM0LImd1owWK3PgfzKFcQMBL8tYqX0f_SKUCqUJOip9U6E78B3p1NgBj-qw1sm1CUy5kg-qPygUYaapB8Eol8p5QZWwtFTSFYJ9noiliIE0HjtI86NPD1XwB2bZHz8SXPFd83AWiU2FdQtCZH-RRJDe0M1zvnQH6",
		),
	],
	"pypi token": [
		"pypi-token",
		j(
			"pypi-AgEIcHlwaS5vcmc",
			"3eZide-sKgvNGOEdI_B91la5Fm6M_cV3nL4tA5Im9-d8lSbv36kulbXxeZ7THxmbNoMM5WDF6bwcKaJcPdw7AIaLMt_Buptrx-rqVJ22B0sMc45hme4VjVL8WjRi33g1iePQ9CD1SXgL4KjAGkPFdWf7tewJ2hBu",
		),
	],
	"postgres url password": ["credentials-in-url", j("postgres://orders:", "bzHkW170!ZL9pUf@db.internal:5432/orders")],
	"mongodb+srv password": ["credentials-in-url", j("mongodb+srv://reporting:", "KI7t7ItbEmwXlC@cluster0.6fph2.mongodb.net/app")],
	"redis url password": ["credentials-in-url", j("redis://:", "HR9z9WecmbXzo7mEYvNi@cache.internal:6379/0")],
	"amqp url password": ["credentials-in-url", j("amqp://worker:", "vQHm5qphnxx2q35t@mq.internal:5672/%2F")],
	"mysql url password": ["credentials-in-url", j("mysql://app:", "r3jnfFWiByw6#31@db:3306/shop")],
	// Connection strings have no format of their own: the password is found by its name.
	"jdbc password param": ["secret-assignment", j("jdbc:postgresql://db:5432/app?user=app&", "password=FFXBVyeeJCFPiy&ssl=true")],
	"odbc pwd": [
		"secret-assignment",
		j("Driver={ODBC Driver 18 for SQL Server};Server=tcp:sql01,1433;Database=hr;Uid=hr_app;", "Pwd=Uput891!KwWuB;Encrypt=yes;"),
	],
	"url password starting with a percent sign": ["credentials-in-url", j("smtp://mailer:", "%HHYA!7rptRXiF@smtp.example.com:587")],
	"url password percent-encoded": ["credentials-in-url", j("postgresql://app:", "%25HHYA!7rptRXiF%23%40%2F@db:5432/x")],
	"token as a clone url's user": ["token-in-url", j("git clone https://", "q0hvok0M4u1Td9rp7fRB3ZzG9BjeYpFu0g91AAxo@github.com/o/r.git")],
	"credentials in https url": ["credentials-in-url", j("https://deploy:", "DTuT6rpqlbXBXf0Lu3PUbwmRIi3LchEQ@artifacts.internal/repo/")],
	"aws access key id": ["aws-access-key-id", j("AKIA", "NG7NTII7ZJLZQ6OI")],
	"aws temporary access key id": ["aws-access-key-id", j("ASIA", "JCEUTAQBUAOITZ7T")],
	"aws secret access key": [
		"aws-secret-access-key",
		j("aws_secret_access_key = ", "8rUUfAbLVUY/oT6eNwAg5+cH7DI89fEb5f8gHZp2"),
		["secret-assignment"],
	],
	"gcp service account json": [
		"gcp-service-account",
		j(
			'{"type": "service_account", "private_key": "',
			'-----BEGIN PRIVATE KEY-----\\n1Wby7aaPnYta1GQVdEE9sjaP2fHZccrWxThEalqddBaeoW0w+BuUqNZtfDp/AGx8\\naK+zivaRrMYxQ1iR+nqaYmpmslPubcT9GfiNXizCWViqdR5eWnMTfZQt4pTpZLjP\\nvA0ErkGCuKn9Fn9VIqiBi8gONRPM6oyPuRIQokhfISdGLbaTpXccLZZHXJ2vFG0v\\nx+hsvLq3GFKJzXKQiE2SLIS6mCR5kBTj0nmlq6mukmWtW+bN9p7h1BOthrnYc6fb\\nGaa38lrY571B08yU2HRLgnIVXqUFCb\\n-----END PRIVATE KEY-----"}',
		),
		["private-key"],
	],
	"azure storage connection string": [
		"azure-storage-account-key",
		j(
			"DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=",
			"qX6hYmt4TASWtG5aV4tUDR5dYBCcHQC9Pz9bHmydg50akCvH61s0lsqFw9ufA64LYsCnJIViWU8LZMH+mAIs+s==;EndpointSuffix=core.windows.net",
		),
		["secret-assignment"],
	],
	"azure sas token": [
		"azure-sas-signature",
		j("https://acme.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&se=2026-01-01&", "sig=MMshBwzWTI9PMrH35jrRAPqC7EOzeyyda3MjMNmVv%2BX%3D"),
	],
	"azure ad client secret": [
		"azure-ad-client-secret",
		j("client_secret: ", "IwC8Q~3f6XPYBhQOmwbLBU~k5LJy~Y-2tjzaqJsX"),
		["secret-assignment"],
	],
	"github classic token": ["github-token", j("ghp_", "qdRVSljUiZXUv3yQnII8q03AMVYXNlttOq41")],
	"github oauth token": ["github-token", j("gho_", "4lhERM6qh2PKEnZawR5WPSnfOjko3nF4QHpw")],
	"github user-to-server token": ["github-token", j("ghu_", "goZ1vmCyPTWG93bq62AUoqkgiSQKnDI6UjZ6")],
	"github server-to-server token": ["github-token", j("ghs_", "dvhAgVyTDD5to1Olf1ahZGXGxwQB89iSHVK1")],
	"github refresh token": ["github-token", j("ghr_", "ghYXl2QvivIMyiht89G4bjEpEbuztx0ZIRSn")],
	"github fine-grained pat": [
		"github-fine-grained-pat",
		j("github_pat_", "0Gl0gLAC5vpNna8VXF3kiS_6347lOmzplBN1VyxpRcLcGVRuJ7XZOx6kZGHHtsX1zyli0ZXGCkI0PLIZ75"),
	],
	"gitlab pat": ["gitlab-token", j("glpat-", "hNvlfaidgT--nP14WYGo")],
	"gitlab deploy token": ["gitlab-token", j("gldt-", "-_UIgV-yFZ1pjRtH307O")],
	"gitlab runner token": ["gitlab-token", j("glrt-", "5Ad3MHZ9bu7okE_Bw2ii")],
	"gitlab runner token from registration": ["gitlab-token", j("glrtr-", "Qx7mK2pL9vRt4Wn8Yb3c")],
	"gitlab workspace token": ["gitlab-token", j("glwt-", "b8Nq4Rx2Lm7Kp1Vt9Wz3")],
	"gitlab incoming mail token in a reply address": [
		"gitlab-token",
		j("incoming+acme-web-42-glimt-", "mt6zbc1x22n98rovdi705bqhq-issue@gitlab.example.com"),
	],
	"gitlab token in a url path": ["gitlab-token", j("https://gitlab.example.com/-/incoming/glimt-", "ixgra0174huq81pg3fcaiy355")],
	"gitlab token with a prefix not yet listed": ["gitlab-token", j("glxyz-", "Hk3Lq8Vm2Rt7Wp4Zn9Bc6Df1")],
	"gitlab runner registration token": ["gitlab-runner-registration", j("GR1348941", "Ar1mINkwAajvOyo8WmsX")],
	"npm token": ["npm-token", j("npm_", "y3GHKMBHf5J6BzZsL3ywcXZSRzYvo9rfQM3i")],
	"stripe live secret key": [
		"stripe-key",
		j("sk_live_", "51th2kpC6MA14Z8kXPD1KCuRAiAjeH3e3QVHDEPjzlzDa0QNveuvys3t8XHlyljaSmrTA6VdvZsPvveKs38sdlLm3OV6d2jVqLY"),
	],
	"stripe restricted key": ["stripe-key", j("rk_live_", "ZgFdogUD1UZJJSlF2zdPtnPr")],
	"stripe webhook secret": ["stripe-webhook-secret", j("whsec_", "JOaDvHvP5cLyNuOSdIKrYC8VPEKQSEsq")],
	"openai project key": [
		"openai-api-key",
		j(
			"sk-proj-",
			"1CaUX2hUu4aDLhsjmWI_nzL9e3LKsnZQS7Z-Jw510GXvUOSJSNyIMlrSFNEpw1xPdDK4_9MR9RT3BlbkFJgblvSStNgk4cJwsZMEHD9kKv9bUxU2OSFoaUBpDYFy9xqe06KkTxDiYuihZnqIKetWYdarRSNJ",
		),
	],
	"openai service account key": [
		"openai-api-key",
		j(
			"sk-svcacct-",
			"npGwCpG3B9cOO6KwL1r_Wy5Ey5wCXYozJ9g2V7EqKWY8ShBcggpj7KnHTNT3BlbkFJvQnEh8oJef5QrS_Tdt4XfZ6HOzyIktiMtf04QYPur2JcURm6vZoKO49i_D",
		),
	],
	"openai legacy key": ["openai-api-key", j("sk-", "PXV1AUB8t80Nyt5yiI3HT3BlbkFJ7QjRxGue2NkJUr86xcwA"), ["sk-api-key"]],
	"anthropic api key": [
		"anthropic-api-key",
		j("sk-ant-api03-", "HqzfCIY0GL1NJNXY7WiDTidhHjhav626c-EFxnLPs98HAj1qwDHpVE_95Oq9KFRTj4tRPT1tIWbYU3qrcZ9Y-rz2VA0SAAA"),
	],
	"anthropic admin key": [
		"anthropic-api-key",
		j("sk-ant-admin01-", "i3sQyJ3wHqIUDnAH5XW2bWdK-leM5aPEbcBNbZSyQAcvLzScq2QNdyOJFJu1s2W5T8PMp8yvi4fMH0yQh2q83tLnmk87MAA"),
	],
	"google api key": ["google-api-key", j("AIzaSy", "1j_Qnj-YSjcbApmuZlGw6XZfcL4uUHSH2")],
	"twilio api key": ["twilio-api-key", j("SK", "37be12a407288fe9f2e168eb4505d919")],
	// twilio-auth-token wants the account SID and the token on one line; on two, the token is found by its name.
	"twilio auth token": [
		"secret-assignment",
		j("TWILIO_ACCOUNT_SID=AC", "6fd9bed5b1fe63fd3705d9480ed51c1d\nTWILIO_AUTH_TOKEN=bbbb525229fdca99f1f1db47599b86df"),
	],
	"sendgrid api key": ["sendgrid-api-key", j("SG.", "60y8x2Wy4bY55xGemJtDXi.OTOVYoMevsou7ChzikZk8HidZGng3C5b4swxRWvRXUz")],
	"mailchimp api key": ["mailchimp-api-key", j("7bd0b67666d808d7cdf81c63a7ef180d", "-us5")],
	"telegram bot token": ["telegram-bot-token", j("2326222018", ":AA4LqNAAm1wqB50xUdDeXcMdQYNWSxRzlNO")],
	"hugging face token": ["huggingface-token", j("hf_", "UEqciECcEZQTRohdsKgasliUDGWHqmfwjb")],
	"shopify access token": ["shopify-token", j("shpat_", "790a60547939a7035fba9a2f90597526")],
	"shopify shared secret": ["shopify-token", j("shpss_", "9b2ff4ec0008a27e350a07bbebb3b4cf")],
	"digitalocean token": ["digitalocean-token", j("dop_v1_", "57f26ada812d81a261c51a5e36ec6ba0eb7a24379f67639672e386c1c1648672")],
	"heroku api key": ["heroku-api-key", j("HRKU-AA", "_r5zG_QSSU-Z40b4tAP6oWxTDE6hwJOo6mRjiDo-Hjrx27Og9GwyZkwD3z")],
	// A legacy Heroku key is a UUID, Datadog's API and application keys plain hex, Cloudflare's tokens and
	// global keys (without the newer cfat_/cfk_ prefixes) random runs: none has a format, each is found by its name.
	"heroku legacy api key": ["secret-assignment", j("HEROKU_API_KEY=", "8f451291-b50e-46d1-a272-9aa08c0a2546")],
	"datadog api key": ["secret-assignment", j("DD_API_KEY=", "d5426daf71135441a9d90089b6e3b76f")],
	"datadog app key": ["secret-assignment", j("DD_APP_KEY=", "20faf7d34770cda8d5b6df3c7f4a166aa66a60e5")],
	// A DSN's secret is the password of a URL.
	"sentry dsn with secret": [
		"credentials-in-url",
		j("https://", "81ef9426651511be8489974df516f3b5:2debf561bbdc7aee256758d1c382b78f@o456664.ingest.sentry.io/4296589"),
	],
	"sentry user token": ["sentry-token", j("sntryu_", "19200b46ea1c09dc2d743a09c12efcd2dfb6cac53fb1424725d7a911f85a8eca")],
	"vault service token": [
		"vault-token",
		j("hvs.", "CAESIgGFMbnFn-uGnfsYP2-E-8wG0AwRrtN6naqZOAhQuzWHL_JkKTvDUf30rfV4AlgiGzCEqngtASXopXzLJ5DMBGzcRcW"),
	],
	"vault batch token": [
		"vault-token",
		j(
			"hvb.",
			"AAAAAQHbpw6UuV8xiw9IKZcMCCK1KYc_2S0Km_xXabJ3plZj2F3PKgLkJmZ5SQdFOdWk6lNHIl9iGoPgb3ULqUWX13BYtsZ5eeMPFtCYtIdTOE_HaC0WmhJzUn2cP2dkGhe3eKNUG6CWoB_C65",
		),
	],
	"doppler token": ["doppler-token", j("dp.pt.", "rI9cgdDPF6YqCrtm1T4jJGvlW62LGwA2EIMab5i1wJm")],
	"linear api key": ["linear-api-key", j("lin_api_", "ymrputYKzbZkXHkKlnMWHrdwnZlNf0p9GoKGCao2")],
	"notion legacy token": ["notion-token", j("secret_", "mdUxBHFSEgkNviEauCvOJgLoaWU9MLX3s8QJ2bC9Z10")],
	"notion token": ["notion-token", j("ntn_", "69678523612Wq5nIwXr2NoT5llrV5mOAyFKKjMMVdPKkpz")],
	"databricks token": ["databricks-token", j("dapi", "611d553a9a189c80801fd863960078d1")],
	"atlassian api token": [
		"atlassian-api-token",
		j(
			"ATATT3xFfGF0",
			"Y3JlO6TEFtyhEu7vbNsxb07v9-52tQjpQomPpjy-IaRoKiXamPL0FnwtpDlpJEx87s_DjBAm7ezhavtLbbarxPYa67zYOsDPQMv-6oi5Iws3qcW-rxssVxkeJjQV9l0ZVCad6HIRI34M7DRdFAsZVdLMwsW30cIECKg8LTz2F3=E36A31D6",
		),
	],
	"docker hub pat": ["docker-hub-token", j("dckr_pat_", "KAtZepaOmtsWDVOMV9xwn0Rv6Jo")],
	"postman api key": ["postman-api-key", j("PMAK-", "c6f20dec0be1d8d8f5629d04-4cf984334d4a9c8f5e613d69f1000753b2")],
	"grafana cloud token": [
		"grafana-cloud-token",
		j(
			"glc_",
			"eyJvIjogIjU1ODQzNCIsICJuIjogInN0YWNrLTE2NzI5OC1obS1yZWFkIiwgImsiOiAiQW9JRmFnMWdXeUVneDBmVW1HUTVGeVgyIiwgIm0iOiB7InIiOiAidXMifX0=",
		),
	],
	"grafana service account token": ["grafana-service-account-token", j("glsa_", "ang9rCW3f5PtIi1OterMWXZONjshraAk_106fdc86")],
	"new relic user key": ["newrelic-key", j("NRAK-", "J0JSKZNRGW6WE2BR5UV6UWQBFDD")],
	"cloudflare api token": ["secret-assignment", j("CLOUDFLARE_API_TOKEN=", "22DscDxvtoBs84QZ4LooXVGKICqj-nsRoxR6VLfP")],
	"cloudflare global api key": ["secret-assignment", j("CF_API_KEY=", "1df3b0869e855df9af0981fcd3f0e282b9afa")],
	"basic auth header": ["http-auth-header", j("Authorization: Basic ", "ZGVwbG95OlNuOHFrU3loOVg4N2xJ")],
	"bearer token header": [
		"bearer-token",
		j("Authorization: Bearer ", "UcdBoCGj8BRDemEUmdXdV6gKTmeTBK_rljABeIQTGj3iulGJ"),
		["http-auth-header"],
	],
	"env secret": ["secret-assignment", j("WEBHOOK_SECRET=", "TnqtGe5T6ySCNKvXH7U1j3byOou1gNa2gWqMkLdd")],
	"yaml secret": ["secret-assignment", j("client_secret: ", "7d0POd3FNoaaM9VCMFmxelmUGqLI48QPQj7T")],
	"json secret": ["secret-assignment", j('{"accessToken": "', 'WpE5F_e_2kay8k_I2YDmJ_caceE85RkPaCd02Qj2Hzbpw5Yz"}')],
	"code secret": ["secret-assignment", j('const signingKey = "', 'ZlyxuGxHm5yx7VPShC76DgVYBJtI3cs8";')],
	"password assignment": ["secret-assignment", j("DB_PASSWORD=", "XSdFC902#CHZuai")],
	"password cli flag": ["cli-secret-flag", j("--password=", "SbqIg729!Bqlwjy"), ["secret-assignment"]],
	"token cli flag": ["cli-secret-flag", j("deploy --token ", "wxLiJNfC0wRYutrQi3XpeC1BpvTXUXi9N3xUcg4b")],
	"mysql -p password": ["mysql-password-flag", j("mysql -u root -p", "roSEQ6807D2QW shop")],
	"curl -u credentials": ["curl-user", j("curl -u deploy:", "tXXq729!pHZS0g https://ci.internal/api")],
	// Gateways and providers that issue "sk-" plus one random run, and other prefixed formats.
	"sk- key of an OpenAI-compatible provider (hex body)": ["sk-api-key", j("DEEPSEEK_API_KEY=sk-", "93debe2975e89ecb25ee78f4f29f9da9")],
	"sk- key of an OpenAI-compatible provider (base62 body)": [
		"sk-api-key",
		j('client = OpenAI(api_key="sk-', 'YSZZxrPjhw6s5SeqFACNN3cD4SDSpgErsRIeu6yAkcABrLPo")'),
		["secret-assignment"],
	],
	"langfuse secret key": ["langfuse-secret-key", j("LANGFUSE_SECRET_KEY=sk-lf-", "0cfeb4f6-f132-6a7f-9628-6a66ed2e4051")],
	"elevenlabs api key": ["elevenlabs-api-key", j("xi-api-key: sk_", "8975559b1c0f7425e292fa9c0dc5bf03ea6ab48d5b4d809f")],
	"pinecone api key": [
		"pinecone-api-key",
		j('pc = Pinecone(api_key="pcsk_', '6RHiz_gtVRMdGGKn9pohE2e1W27C7nCBGnJDMzIm6R9kpPegQIMddgpFUMir2LSj")'),
		["secret-assignment"],
	],
	"tavily api key": ["tavily-api-key", j("tvly-dev-", "pFiyhR9KYNAIY7b6MB335EY4AyFvQ7sY")],
	"supabase secret key": [
		"supabase-secret-key",
		j("SUPABASE_SECRET_KEY: sb_secret_", "5HzPyJ3j2IJDETvByQlRFXPvp273i5UB"),
		["secret-assignment"],
	],
	"bitbucket app password": [
		"bitbucket-app-password",
		j("git clone https://ci-bot:ATBB", "CKgu0LuF7RTr6XYezI6tgocwBuYXUemqEA7C3117@bitbucket.org/acme/app.git"),
		["credentials-in-url"],
	],
	"bitbucket app password alone": ["bitbucket-app-password", j("ATBB", "CKgu0LuF7RTr6XYezI6tgocwBuYXUemqEA7C3117")],
	"azure devops pat": ["azure-devops-pat", j("jDOicEx0XBuMCY1Rrp35v7JPElHG2BV52HIOrGx0o85H4YIjac2LvgiiF7izWoj8rqt7Itl8qHM6", "AZDO2juH")],
	"alibaba access key id": ["alibaba-access-key-id", j("accessKeyId: LTAI", "o0UUd6zHR7CfWmxXbttt")],
	"resend api key": ["resend-api-key", j("RESEND_API_KEY=re_", "uc7WCmj4_U6yeMkzBu7cpRZUFiS6kLuGL"), ["secret-assignment"]],
	"brevo api key": ["brevo-api-key", j("xkeysib-", "02f5fe29e7f41fbbaf0bf1caeb0cecfc09168d74ea8549bf89a2eb8464340c67-K4oHAwwBkB1OXcUc")],
	"mailgun private key": ["mailgun-private-key", j("api:", "8628e1bd9b152e818d3d0c5c25f9e260-0e285181-570e88b5")],
	"mailgun private key under its name": [
		"mailgun-private-key",
		j("MAILGUN_API_KEY=", "8628e1bd9b152e818d3d0c5c25f9e260-0e285181-570e88b5"),
		["secret-assignment"],
	],
	"x bearer token": [
		"twitter-bearer-token",
		j(
			"AAAAAAAAAAAAAAAAAAAAA",
			"Kq7cR2AAAAAAAAs9u8oKPvfFt8GOoDMM%2BQCS4331vKkuHMkCcToHMci3JmPvlLUmn%3DMW49fY4KOyBXcU9OXqf2yEaFSLtJLlKE3E8S",
		),
	],
};

// The look-alikes detectors stumble on: each must leave the detector silent.
const LOOK_ALIKES: Record<string, string> = {
	// Three dotted parts of a Discord token's lengths, but words: a builder chain, a dotted name.
	"discord-shaped call chain": "ConfigurationLoaderFactory.create.buildDefaultConfigurationForTests()",
	"discord-shaped dotted name": "see com.ExampleCompanyPlatformService2.client.RequestRetryPolicyBuilderDefaults",
	uuid: 'requestId = "3fa85f64-5717-4562-b3fc-2c963f66afa6"',
	"uuid as an id": "credentialsId: 'ff083f76-7804-4ef1-80e4-fe975bb9141b'",
	"git sha": "git checkout 9c1e2f3a4b5c6d7e8f90a1b2c3d4e5f6a7b8c9d0",
	"git sha assigned": 'SRCREV_moby = "43fc912ef59a83054ea7f6706df4d53a7dea4d80"',
	"content hash": "digest: sha256:4f1c2d3e5a6b4c7d8e9f0a1b2c3d4e5f4f1c2d3e5a6b4c7d8e9f0a1b2c3d4e5f",
	"md5 in prose": "The hash is 5d41402abc4b2a76b9719d911017c592 (md5 of hello).",
	"base64 of prose": "ANY_KEY = ZHVtbXkgdGV4dCBkYXRhIGRhdGEgZGF0YQ==",
	"css colours": ".btn { color: #1a2b3c; background-color: #ffcc00; border: 1px solid #abc; }",
	"hex colour constant": "const ACCENT = 0xFF8800AA;",
	"package integrity hash": j(
		'"integrity": "sha512-',
		"Zx9Kq2Lw7Np3Rv8Tb1Yc6Hd5Jf0Gm2Qs9Lx4Ek7Pz1Nc8Vb3Mn6Qw4Er7Ty0Ui3Op6As9Df2Gh5Jk8Lz1Xc4Vb7Nm0Ab==",
		'"',
	),
	"packageManager hash": '"packageManager": "pnpm@10.4.1+sha512.0a31fc7ee2cca8f25aacafb0fae1c5d27e8c4d3ecbf3eea76e9c4be73f6d4f3b"',
	"long identifier": "const getUserAuthenticationTokenFromSessionStorage = () => null;",
	"identifier assigned to a key name": "schemaKey = 'DOC_Vector_5_32'",
	"dotted identifier": '<entry key="jetbrains.mps.v8_elimination" value="executed" />',
	"version string": "COMMUNICATION_API_VERSION=rc0.15.0_20231217_1420-SNAPSHOT",
	"placeholder sk-xxxx": "OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"placeholder ghp_XXXX": j("export GITHUB_TOKEN=ghp_", "X".repeat(36)),
	"placeholder in angle brackets": "api_key: <YOUR_API_KEY>",
	// biome-ignore lint/suspicious/noTemplateCurlyInString: a shell template is the case under test.
	"environment reference": "token = ${API_TOKEN}",
	"truncated key": "STRIPE_SECRET_KEY=sk_live_...",
	"your-password-here": "password: your-password-here",
	"placeholder bot token": "SLACK_BOT_TOKEN=xoxb-your-bot-token",
	"placeholder bearer": "Authorization: Bearer <token>",
	"placeholder url credentials": "postgres://user:password@localhost:5432/db",
	"aws documented example secret": j("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfi", "CYEXAMPLEKEY"),
	"public ssh key":
		"ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABAQC7VJTUt9Us8cKjMzEfYyjiWA4R4/M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuYEvu dev@host",
	certificate: "-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUFADBaMQswCQYDVQQGEwJJ\n-----END CERTIFICATE-----",
	"public key block":
		"-----BEGIN PUBLIC KEY-----\nMIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAu1SU1LfVLPHCozMxH2Mo\n-----END PUBLIC KEY-----",
	"publishable key": j("stripe publishable key: pk_live_", "51Nz8Kq2Lw7Np3Rv8Tb1Yc6Hd5Jf0Gm2Qs9Lx4Ek7Pz1Nc8Vb3Mn6"),
	"code reading a secret": 'const apiKey = process.env.STRIPE_SECRET_KEY ?? "";',
	"code calling for a token": "const token = await getToken(ctx);",
	"schema field": "password: z.string().min(8),",
	"type annotation": "token: string;",
	"csrf token": 'csrf-token="Mj2qykJO5rELyHgezQ69nzUX0i3OH67V7+V4eUrLfpuyOuxm"',
	"pagination token": '"nextPageToken": "CiAKGjBpNDd2Nmp2Zml2cXRwYjBpOXA"',
	"model token limit": "max_tokens: 4096, temperature: 0.2",
	"prose about secrets": "Never commit the API key; the token is rotated weekly and the password lives in Vault.",
	"password rules in prose": "The password field must contain at least 12 characters, including a digit.",
	"asset hash": '<script src="/assets/index-Bx7kQ2mL.js"></script><link href="/assets/app.3f9a8b7c6d5e4f3a2b1c.css">',
	"data uri":
		"background: url(data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==)",
	"docker image digest": "image: ghcr.io/acme/api@sha256:0d3f1e9b8c7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c",
	"registry tarball url": "https://registry.npmjs.org/jsonwebtoken/-/jsonwebtoken-9.0.2.tgz",
	"sentry dsn public key": "SENTRY_DSN=https://3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c@o450123.ingest.sentry.io/5512345",
	"windows variable as a url password": "mysql://app:%DB_PASSWORD%@db:3306/shop",
	"gl words joined by hyphens": "see glossary-terms-for-the-billing-module and global-settings-v2-migration-plan",
	"url without credentials": "postgres://postgres@localhost:5432/postgres and https://user@github.com/acme/app.git",
	"sealed secret ciphertext":
		"kind: SealedSecret\nspec:\n  encryptedData:\n    password: AgBy8hQx2Rv7Tm1Wn5Yb8Hc3Jd6Fg0Ks4Lp9Qx2Rv7Tm1Wn5Yb8Hc3Jd6Fg0Ks4Lp9",
	"firebase web config": j(
		'const firebaseConfig = { apiKey: "AIzaSy',
		'Dk9Qx2Rv7Tm1Wn5Yb8Hc3Jd6Fg0Ks4Lp9", authDomain: "acme-app.firebaseapp.com" };',
	),
	"-p meaning a path, port or prompt":
		"mkdir -p /var/lib/app && ssh -p 2222 deploy@host && docker run -p 8080:80 nginx && mysql -u root -p app",
	"password from a variable": "docker login -u deploy -p $DOCKER_PASSWORD; curl -u $USER:$PASS https://ci.internal",
	"password from stdin": "echo $TOKEN | docker login ghcr.io -u USERNAME --password-stdin",
	"password read at runtime": "password = getpass.getpass('Password: ')",
	"password rules as a message": "password is required; token was revoked",
	"webhook signature": "X-Hub-Signature-256: sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17",
	"sk- followed by a placeholder": "API_KEY=sk-your-key-goes-here-xxxxxxxxxxxxxxxxxxxx",
	"sk- inside a longer name": "task-3f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c-retry",
	"sk- followed by an identifier": "const sk = 'sk-ContinuousIntegrationPipelineConfiguration'",
	"re_ identifier": "re_render_ComponentWhenPropsChangeAgain()",
	"pinecone placeholder": "PINECONE_API_KEY=pcsk_xxxxx_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	"AZDO in prose": "Migrated the pipelines from AZDO2024 to GitHub Actions.",
	"base64 blob starting with zero bytes":
		"data = 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'",
	"long base64 run after a run of A": j(
		"blob: AAAAAAAAAAAAAAAAAAAAAAAAGkq8Wm3Ry0Tz5Vb2Xn7Ld4Pc1Hf9Js6Ka3Qe8Uw0Ig5Oy2Mt7Rv4Bx9Np1Ds6Fh3Lc8Wk0Zq",
		"5Ej2Ta7Yu4Io9Pg1Ah6Sm3Dn8Fb0Gv5Hx2Jc7Kr4Lw9Ze1Xt6Cy3Vp8Bq0Nm5Ms2Qd7Wf4Er9Ty1Ug6Ih3Oj8Pk0Al5Sz2Dx7Fc4Gv9Hb1Jn6Km3",
	),
	"uuid-shaped hex groups": "request 3f9a8b7c-6d5e-4f3a-2b1c-0d9e8f7a6b5c failed",
};

describe("secret families", () => {
	for (const [family, [rule, secret, also = []]] of Object.entries(FAMILIES)) {
		it(`finds a ${family} by ${rule}`, async () => {
			const findings = await findSecrets(`Notes from the session.\n${secret}\nMore notes.`);
			expect(ruleNames(findings), family).toEqual([rule, ...also].sort());
		});
	}

	it("redacts every family without leaving its random part behind", async () => {
		for (const [family, [, secret]] of Object.entries(FAMILIES)) {
			const { text } = await redactSecrets(`before\n${secret}\nafter`);
			expect(text, family).toMatch(/\[REDACTED:/);
			// The most random run of token characters is the secret part (a password, a key body, a
			// token); names, hosts and ids around it may stay. (A Twilio account SID is an id: skipped.)
			if (family.includes("twilio auth")) continue;
			// A reply address is one run with its token: the token's own body must be gone.
			if (family.includes("reply address")) {
				expect(text, family).not.toContain("mt6zbc1x22n98");
				continue;
			}
			const runs = secret.match(/[A-Za-z0-9+_-]{12,}/g) ?? [];
			const random = runs.sort((a, b) => entropy(b) - entropy(a))[0];
			if (random) expect(text, family).not.toContain(random.slice(2, 12));
		}
	});
});

describe("look-alikes", () => {
	for (const [kind, text] of Object.entries(LOOK_ALIKES)) {
		it(`leaves ${kind} alone`, async () => {
			expect(ruleNames(await findSecrets(text)), kind).toEqual([]);
		});
	}
});

describe("synthetic credentials no rule was written against", () => {
	// Random bodies in issued formats, in env files, JSON, YAML, code, shell and prose (see bench/secret-samples.ts).
	const samples = syntheticSamples(7, 3);

	// Where a sample's own rule rightly gives way to another, and the rule that finds it then.
	const INSTEAD: { rule: string; by: string; when: (text: string) => boolean }[] = [
		// A policy catch-all yields to a format rule over the same span (src/security/secrets.ts): here the
		// context's secret-named assignment, `export TOKEN_VALUE="…"`.
		...POLICY_RULES.map((r) => ({ rule: r.id, by: "secret-assignment", when: (t: string) => t.startsWith("export TOKEN_VALUE=") })),
		// twilio-auth-token wants the account SID and the token on one line; on two, the token is found by its name.
		{ rule: "twilio-auth-token", by: "secret-assignment", when: (t) => /AC[0-9a-f]{32}\n/.test(t) },
	];

	it("finds every synthetic credential by the rule of its format", async () => {
		const wrong: string[] = [];
		for (const s of samples.filter((x) => x.label === "secret")) {
			const rules = ruleNames(await findSecrets(s.text));
			const instead = INSTEAD.some((i) => i.rule === s.rule && rules.includes(i.by) && i.when(s.text));
			if (!rules.includes(s.rule) && !instead) wrong.push(`${s.family}: ${s.rule} expected, found ${rules.join(",") || "nothing"}`);
		}
		expect(wrong).toEqual([]);
	});

	it("stays silent on every synthetic look-alike", async () => {
		const flagged: string[] = [];
		for (const s of samples.filter((x) => x.label === "non-secret")) {
			const found = await findSecrets(s.text);
			if (found.length > 0) flagged.push(`${s.family}: ${ruleNames(found).join(",")}`);
		}
		expect([...new Set(flagged)].slice(0, 30)).toEqual([]);
	});
});
