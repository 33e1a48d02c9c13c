// Prepares a fresh checkout for `npm start`: local secrets from the committed example.
import { copyFileSync, existsSync } from "node:fs";

if (!existsSync(".dev.vars")) {
	copyFileSync(".dev.vars.example", ".dev.vars");
	console.log("created .dev.vars from .dev.vars.example (local development only)");
}
