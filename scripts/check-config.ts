// Fails fast with the names of invalid settings before anything else starts.
import { ConfigError, loadConfig } from "@/lib/config";

try {
  const config = loadConfig();
  console.log(`[toolgate] configuration ok (database: ${config.databaseProvider}, model: ${config.MODEL_PROVIDER})`);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(`[toolgate] ${error.message}`);
    process.exit(1);
  }
  throw error;
}
