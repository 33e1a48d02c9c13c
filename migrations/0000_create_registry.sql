CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`user_id` text NOT NULL,
	`name` text NOT NULL,
	`digest` text NOT NULL,
	`scopes` text NOT NULL,
	`project_id` text,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	`last_used_at` text,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `api_keys_tenant` ON `api_keys` (`tenant_id`);--> statement-breakpoint
CREATE TABLE `memories` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`scope` text NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`description` text NOT NULL,
	`version` integer NOT NULL,
	`content_hash` text NOT NULL,
	`bytes` integer NOT NULL,
	`source` text NOT NULL,
	`session_id` text,
	`author_id` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`verified_at` text NOT NULL,
	`times_served` integer DEFAULT 0 NOT NULL,
	`last_served_at` text,
	FOREIGN KEY (`project_id`) REFERENCES `projects`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `memories_identity` ON `memories` (`project_id`,`scope`,`owner_id`,`name`);--> statement-breakpoint
CREATE INDEX `memories_listing` ON `memories` (`project_id`,`type`,`name`);--> statement-breakpoint
CREATE TABLE `memory_versions` (
	`memory_id` integer NOT NULL,
	`project_id` text NOT NULL,
	`version` integer NOT NULL,
	`content_hash` text NOT NULL,
	`type` text NOT NULL,
	`description` text NOT NULL,
	`source` text NOT NULL,
	`session_id` text,
	`author_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`memory_id`, `version`)
);
--> statement-breakpoint
CREATE INDEX `memory_versions_hash` ON `memory_versions` (`project_id`,`content_hash`);--> statement-breakpoint
CREATE TABLE `projects` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`canonical_key` text NOT NULL,
	`git_remote` text,
	`root_path` text,
	`index_generation` integer DEFAULT 0 NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `projects_tenant_canonical` ON `projects` (`tenant_id`,`canonical_key`);--> statement-breakpoint
CREATE TABLE `settings` (
	`tenant_id` text NOT NULL,
	`level` text NOT NULL,
	`subject_id` text NOT NULL,
	`values_json` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`tenant_id`, `level`, `subject_id`)
);
--> statement-breakpoint
CREATE TABLE `tenants` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')) NOT NULL,
	FOREIGN KEY (`tenant_id`) REFERENCES `tenants`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_tenant_name` ON `users` (`tenant_id`,`name`);