// The browsers the browser tests run in, best first: Debian's Chromium headless shell (the engine without the
// desktop browser: less work per page on a two-core machine), then Debian's full Chromium. Never a downloaded one.
export const CHROMIUM_CANDIDATES = ["/usr/bin/chromium-headless-shell", "/usr/bin/chromium"];
