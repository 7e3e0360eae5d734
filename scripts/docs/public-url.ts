/**
 * The docs' examples carry the site's address from the build's `PUBLIC_URL`. A build without it
 * writes the development default into every example, so it says so in a box that cannot be missed.
 */
export function missingPublicUrlWarning(env: Record<string, string | undefined>, publicUrl: string): string | null {
  if (env.PUBLIC_URL) return null;
  const lines = [
    "WARNING: PUBLIC_URL is not set.",
    `Every example in the docs says ${publicUrl}.`,
    "Build for production with PUBLIC_URL=https://your.site npm run build",
  ];
  const width = Math.max(...lines.map((line) => line.length));
  const bar = "!".repeat(width + 4);
  return [bar, ...lines.map((line) => `! ${line.padEnd(width)} !`), bar].join("\n");
}
