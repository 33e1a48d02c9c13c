import { CairnError } from "../errors";
import { findSecrets, ruleNames } from "./secrets";

/** Refuses text holding a secret with 422, naming the rules and never the secret. */
export async function assertNoSecretsIn(text: string, what: string): Promise<void> {
	const findings = await findSecrets(text);
	if (findings.length > 0) {
		throw new CairnError("secret_detected", `${what} contains what looks like a secret; remove it and retry`, {
			rules: ruleNames(findings),
		});
	}
}
