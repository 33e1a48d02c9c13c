CREATE TABLE `consolidation_events` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`project_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`run_id` text NOT NULL,
	`op` text NOT NULL,
	`target` text NOT NULL,
	`outcome` text NOT NULL,
	`reason` text NOT NULL,
	`evidence_json` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `consolidation_events_project` ON `consolidation_events` (`project_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `skills` (
	`project_id` text NOT NULL,
	`owner_id` text NOT NULL,
	`name` text NOT NULL,
	`description` text NOT NULL,
	`content_hash` text NOT NULL,
	`updated_at` text NOT NULL,
	PRIMARY KEY(`project_id`, `owner_id`, `name`)
);
--> statement-breakpoint
CREATE INDEX `memories_summary` ON `memories` (`project_id`,`type`,`times_served`,`updated_at`);