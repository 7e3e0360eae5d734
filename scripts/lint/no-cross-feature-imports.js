import path from "node:path";

/** The folder under src/web/features a path lies in, or undefined outside the features. */
function featureOf(features, file) {
  const relative = path.relative(features, file);
  if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep)[0];
}

/**
 * Features never import each other (ARCHITECTURE.md, bulletproof-react's boundaries): what two
 * features need lives in src/web/lib or src/web/components, and routes compose features.
 * Resolves each relative import, so it holds at any depth and for dynamic import() too.
 */
export const noCrossFeatureImports = {
  meta: {
    type: "problem",
    docs: { description: "forbid imports from one src/web/features/<feature> into another" },
    messages: {
      crossFeature: "src/web/features/{{from}} imports from src/web/features/{{to}}: move what both need to src/web/lib or src/web/components",
    },
    schema: [],
  },
  create(context) {
    const features = path.resolve(context.cwd, "src", "web", "features");
    const from = featureOf(features, context.filename);
    if (!from) return {};
    const check = (source) => {
      if (source?.type !== "Literal" || typeof source.value !== "string" || !source.value.startsWith(".")) return;
      const to = featureOf(features, path.resolve(path.dirname(context.filename), source.value));
      if (to && to !== from) context.report({ node: source, messageId: "crossFeature", data: { from, to } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};
