-- Full-text index over topic files: rowid = memories.id.
-- porter stemming over unicode61 so "deploys" finds "deploy"; kept in step with `memories`
-- by the same D1 batch that changes a memory (see src/memory/store.ts).
CREATE VIRTUAL TABLE `memories_fts` USING fts5(
	`name`,
	`description`,
	`body`,
	tokenize = 'porter unicode61'
);
