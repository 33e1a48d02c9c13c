// The Worker as the tests and benchmarks run it: the product's entry, with the project's object replaced
// by a subclass that takes test seams (scripted models, an embedder, fault points). The product class
// has no way to set them from outside; wrangler.toml's class name binds to this subclass here.
import { type ObjectSeams, ProjectCoordinator as ProductCoordinator } from "../src/project/object";

export { default } from "../src/index";

export class ProjectCoordinator extends ProductCoordinator {
	/** Hands the object its seams; a seam given as undefined goes back to production's choice. */
	configure(seams: ObjectSeams): void {
		this.seams = { ...this.seams, ...seams };
	}
}

/** Sets seams on an object reached with `runInDurableObject`; fails when the runtime is not running the harness's object. */
export function setSeams(instance: ProductCoordinator, seams: ObjectSeams): void {
	if (!(instance instanceof ProjectCoordinator))
		throw new Error("the runtime's project object is not the test harness's (see vitest.workers.ts)");
	instance.configure(seams);
}
