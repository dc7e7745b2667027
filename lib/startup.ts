import { ConfigError, loadConfig } from "@/lib/config";

/** Called once by instrumentation.ts in the Node.js runtime. */
export function validateConfigOrExit(): void {
  try {
    loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[toolgate] ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
}
