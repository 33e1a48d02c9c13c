-- Full-text index over topic files: rowid = memories.id.
-- porter stemming over unicode61 so "deploys" finds "deploy"; kept in step with `memories`
-- by the same D1 batch that changes a memory (see src/memory/store.ts).
-- `scope_key` holds tokens for the project and the owner ("p<project> o<user>" or "p<project> oteam"),
-- so a recall query is confined to one project's memories inside the index itself: its cost follows
-- the project, not every tenant's memories in the database.
CREATE VIRTUAL TABLE `memories_fts` USING fts5(
	`name`,
	`description`,
	`body`,
	`scope_key`,
	tokenize = 'porter unicode61'
);
