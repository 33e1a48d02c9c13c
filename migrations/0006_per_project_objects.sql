-- Per-project data now lives in each project's Durable Object. D1 keeps the registry plus what the
-- cron needs to find projects with work. The old per-project tables stay until the storage mover has
-- run (see docs/storage.md); a later migration drops them.
ALTER TABLE `projects` ADD `pending_work` integer DEFAULT 0 NOT NULL;
--> statement-breakpoint
-- Projects moved into their objects by the mover (NULL = not yet), and where a move stopped.
ALTER TABLE `projects` ADD `storage_moved_at` text;
--> statement-breakpoint
CREATE TABLE `storage_moves` (
	`project_id` text PRIMARY KEY NOT NULL,
	`phase` text NOT NULL,
	`cursor` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `maintenance_cursors` (
	`task` text PRIMARY KEY NOT NULL,
	`last_project_id` text NOT NULL
);
--> statement-breakpoint
-- Sessions that already hold unprocessed turns keep being scanned after the move.
UPDATE `projects` SET `pending_work` = 1 WHERE `id` IN (SELECT DISTINCT `project_id` FROM `sessions` WHERE `cursor` < `turns`);
