import { timed } from "../lib/timing";
/**
 * The project's own SQLite (a Durable Object's `ctx.storage.sql`) behind the small part of the D1
 * statement API that Cairn's queries use: `prepare().bind().first() | all() | run()` and `batch()`.
 * Domain code reads and writes a project's data through this interface only, so the same SQL runs
 * unchanged whether it is handed the object's database or, in the storage mover, a view of it.
 *
 * `batch()` runs inside one synchronous transaction: all statements apply or none do, exactly like
 * a D1 batch. The object's storage is local, so every call completes without yielding.
 */
export type SqlValue = string | number | null | ArrayBuffer;

export interface SqlRunResult<T = Record<string, unknown>> {
	results: T[];
	meta: { changes: number };
}

export interface ProjectStatement {
	bind(...values: unknown[]): ProjectStatement;
	first<T = Record<string, unknown>>(column?: string): Promise<T | null>;
	all<T = Record<string, unknown>>(): Promise<SqlRunResult<T>>;
	run<T = Record<string, unknown>>(): Promise<SqlRunResult<T>>;
	/** The rows as arrays of their columns' values, in the statement's column order (D1's `raw()`): no object per row. */
	raw<T extends unknown[] = SqlValue[]>(): Promise<T[]>;
}

export interface ProjectDb {
	prepare(query: string): ProjectStatement;
	/**
	 * A statement that, run in a batch, aborts the whole batch (rolling it back) with `GuardFailure`
	 * unless `condition` (an SQL boolean expression) holds at that point of the transaction.
	 */
	guard(condition: string, ...values: unknown[]): ProjectStatement;
	batch<T = Record<string, unknown>>(statements: ProjectStatement[]): Promise<SqlRunResult<T>[]>;
}

/** D1 binds booleans as 0/1 and undefined as NULL; the object's SQL API accepts neither. */
function toSqlValue(value: unknown): SqlValue {
	if (value === undefined || value === null) return null;
	if (typeof value === "boolean") return value ? 1 : 0;
	if (typeof value === "number" || typeof value === "string" || value instanceof ArrayBuffer) return value;
	if (typeof value === "bigint") return Number(value);
	throw new TypeError(`cannot bind a value of type ${typeof value}`);
}

/** Thrown when a guard statement's condition does not hold; the batch it was part of is rolled back. */
export class GuardFailure extends Error {
	constructor() {
		super("guard condition failed");
	}
}

class Statement implements ProjectStatement {
	constructor(
		private readonly db: ObjectSqlDb,
		readonly query: string,
		readonly params: SqlValue[] = [],
		private readonly isGuard = false,
	) {}

	bind(...values: unknown[]): ProjectStatement {
		return new Statement(this.db, this.query, values.map(toSqlValue), this.isGuard);
	}

	execute<T>(): SqlRunResult<T> {
		return timed("sql", () => this.executeNow<T>());
	}

	private executeNow<T>(): SqlRunResult<T> {
		const cursor = this.db.sql.exec<Record<string, SqlValue>>(this.query, ...this.params);
		if (this.isGuard) {
			if (!cursor.toArray()[0]?.ok) throw new GuardFailure();
			return { results: [], meta: { changes: 0 } };
		}
		const results = cursor.toArray() as T[];
		return { results, meta: { changes: cursor.rowsWritten } };
	}

	async first<T>(column?: string): Promise<T | null> {
		const row = (this.execute<Record<string, unknown>>().results[0] ?? null) as Record<string, unknown> | null;
		if (row === null) return null;
		return (column ? (row[column] ?? null) : row) as T | null;
	}

	async all<T>(): Promise<SqlRunResult<T>> {
		return this.execute<T>();
	}

	async run<T>(): Promise<SqlRunResult<T>> {
		return this.execute<T>();
	}

	async raw<T extends unknown[]>(): Promise<T[]> {
		return timed("sql", () => Array.from(this.db.sql.exec(this.query, ...this.params).raw()) as T[]);
	}
}

export class ObjectSqlDb implements ProjectDb {
	constructor(
		readonly sql: SqlStorage,
		private readonly transaction: <T>(fn: () => T) => T,
	) {}

	prepare(query: string): ProjectStatement {
		return new Statement(this, query);
	}

	guard(condition: string, ...values: unknown[]): ProjectStatement {
		return new Statement(this, `SELECT (${condition}) AS ok`, values.map(toSqlValue), true);
	}

	async batch<T>(statements: ProjectStatement[]): Promise<SqlRunResult<T>[]> {
		return this.transaction(() => statements.map((s) => (s as Statement).execute<T>()));
	}
}

/**
 * A statement's rows as objects keyed by `keys`, one per selected column in order. Read as arrays (`raw()`)
 * and named here: for hundreds of rows that is cheaper than SQLite handing over an object per row.
 */
export async function namedRows<T>(statement: ProjectStatement, keys: readonly string[]): Promise<T[]> {
	const rows = await statement.raw();
	return rows.map((values) => {
		const row: Record<string, unknown> = {};
		for (const [i, key] of keys.entries()) row[key] = values[i];
		return row as T;
	});
}
