/** Markdown rendered at build time by scripts/markdown/vite-plugin.ts. */
declare module "*.md?html" {
  const document: {
    title: string;
    html: string;
    headings: { level: number; id: string; text: string }[];
  };
  export default document;
}
