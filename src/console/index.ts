export { consoleRoutes } from "./routes";
