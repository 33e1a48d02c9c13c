CREATE TABLE `memory_visibility` (
	`memory_id` integer PRIMARY KEY NOT NULL,
	`project_id` text NOT NULL,
	`scope` text NOT NULL,
	`owner_id` text NOT NULL
);
--> statement-breakpoint
-- Backfill from the registry (a no-op on a new database).
INSERT INTO `memory_visibility` (`memory_id`, `project_id`, `scope`, `owner_id`) SELECT `id`, `project_id`, `scope`, `owner_id` FROM `memories`;
