-- Console sessions live on the server: the cookie holds only a reference (the row id) and the key that
-- opens this row's sealed API key, so signing out (or revoking the key) ends the session everywhere.
CREATE TABLE `console_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`tenant_id` text NOT NULL,
	`key_id` text NOT NULL,
	`sealed_key` text NOT NULL,
	`csrf` text NOT NULL,
	`expires_at` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `console_sessions_key` ON `console_sessions` (`key_id`);
