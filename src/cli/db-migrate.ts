// `npm run db:migrate`: applies pending migrations to DATABASE_URL (the server also does at start).
import { loadConfig } from "../config.ts";
import { migrateDatabase } from "../db/migrate.ts";

const config = loadConfig();
const applied = await migrateDatabase(config.databaseUrl);
console.log(JSON.stringify({ database: config.dialect, applied }));
