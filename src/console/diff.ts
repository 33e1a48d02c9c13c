// A line diff for the side-by-side history view: longest common subsequence over lines, paired
// into rows (unchanged lines on both sides; a run of removals beside the run of additions it replaces).

export type DiffRow =
	| { kind: "same"; left: string; right: string; leftNo: number; rightNo: number }
	| { kind: "change"; left: string | null; right: string | null; leftNo: number | null; rightNo: number | null };

/** Larger inputs are compared as one replaced block rather than spending quadratic time on them. */
const MAX_CELLS = 4_000_000;

export function diffLines(before: string, after: string): DiffRow[] {
	const a = before.split("\n");
	const b = after.split("\n");
	const ops: { op: "same" | "del" | "add"; line: string }[] = [];
	if (a.length * b.length > MAX_CELLS) {
		for (const line of a) ops.push({ op: "del", line });
		for (const line of b) ops.push({ op: "add", line });
	} else {
		// lcs[i][j]: length of the LCS of a[i..] and b[j..], one flat array.
		const w = b.length + 1;
		const lcs = new Uint32Array((a.length + 1) * w);
		for (let i = a.length - 1; i >= 0; i--) {
			for (let j = b.length - 1; j >= 0; j--) {
				lcs[i * w + j] = a[i] === b[j] ? (lcs[(i + 1) * w + j + 1] ?? 0) + 1 : Math.max(lcs[(i + 1) * w + j] ?? 0, lcs[i * w + j + 1] ?? 0);
			}
		}
		let i = 0;
		let j = 0;
		while (i < a.length || j < b.length) {
			if (i < a.length && j < b.length && a[i] === b[j]) {
				ops.push({ op: "same", line: a[i] as string });
				i++;
				j++;
			} else if (j < b.length && (i >= a.length || (lcs[i * w + j + 1] ?? 0) >= (lcs[(i + 1) * w + j] ?? 0))) {
				ops.push({ op: "add", line: b[j] as string });
				j++;
			} else {
				ops.push({ op: "del", line: a[i] as string });
				i++;
			}
		}
	}
	const rows: DiffRow[] = [];
	let leftNo = 0;
	let rightNo = 0;
	let k = 0;
	while (k < ops.length) {
		const op = ops[k] as (typeof ops)[number];
		if (op.op === "same") {
			rows.push({ kind: "same", left: op.line, right: op.line, leftNo: ++leftNo, rightNo: ++rightNo });
			k++;
			continue;
		}
		const dels: string[] = [];
		const adds: string[] = [];
		while (k < ops.length && (ops[k] as (typeof ops)[number]).op !== "same") {
			const o = ops[k] as (typeof ops)[number];
			(o.op === "del" ? dels : adds).push(o.line);
			k++;
		}
		for (let n = 0; n < Math.max(dels.length, adds.length); n++) {
			const left = dels[n] ?? null;
			const right = adds[n] ?? null;
			rows.push({
				kind: "change",
				left,
				right,
				leftNo: left === null ? null : ++leftNo,
				rightNo: right === null ? null : ++rightNo,
			});
		}
	}
	return rows;
}
