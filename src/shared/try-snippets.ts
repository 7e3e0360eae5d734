/**
 * Code that makes the request a console try just made (issue 40): the same URL, method, content
 * type and body, the key read from the environment variable `API_KEY`, never written inline.
 */

export interface SnippetRequest {
  /** The call's full URL: the gateway's base, `/v1/tools/{id}`, then the try's path. */
  url: string;
  method: string;
  contentType: string | null;
  body: string;
  /** The tool speaks the OpenAI API (it lists models): the OpenAI SDK is offered for chat completions. */
  openai: boolean;
}

export const SNIPPET_LANGUAGES = ["curl", "python", "javascript", "openai", "go", "java", "php"] as const;
export type SnippetLanguage = (typeof SNIPPET_LANGUAGES)[number];

export const SNIPPET_LABELS: Record<SnippetLanguage, string> = {
  curl: "curl",
  python: "Python (requests)",
  javascript: "JavaScript (fetch)",
  openai: "OpenAI SDK (Node.js)",
  go: "Go",
  java: "Java",
  php: "PHP",
};

/** The environment variable every snippet reads the key from. */
export const SNIPPET_KEY_VARIABLE = "API_KEY";

const shell = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;
/** A JSON string literal is also a valid literal in JavaScript, Python, Go and Java for any text. */
const quoted = (text: string) => JSON.stringify(text);
const phpQuoted = (text: string) => `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
const sendsBody = (request: SnippetRequest) => request.method !== "GET";

function curl(r: SnippetRequest): string {
  const lines = [`curl -sS -X ${r.method} ${shell(r.url)}`, `  -H "Authorization: Bearer $${SNIPPET_KEY_VARIABLE}"`];
  if (r.contentType) lines.push(`  -H ${shell(`content-type: ${r.contentType}`)}`);
  if (sendsBody(r)) lines.push(`  --data-raw ${shell(r.body)}`);
  return lines.join(" \\\n");
}

function python(r: SnippetRequest): string {
  const headers = [`"Authorization": f"Bearer {os.environ['${SNIPPET_KEY_VARIABLE}']}"`];
  if (r.contentType) headers.push(`"content-type": ${quoted(r.contentType)}`);
  return [
    "import os",
    "",
    "import requests",
    "",
    "response = requests.request(",
    `    ${quoted(r.method)},`,
    `    ${quoted(r.url)},`,
    `    headers={${headers.join(", ")}},`,
    ...(sendsBody(r) ? [`    data=${quoted(r.body)}.encode("utf-8"),`] : []),
    "    timeout=120,",
    ")",
    'print(response.status_code, response.headers.get("x-tollgate-cost"))',
    "print(response.text)",
  ].join("\n");
}

function javascript(r: SnippetRequest): string {
  const headers = [`Authorization: \`Bearer \${process.env.${SNIPPET_KEY_VARIABLE}}\``];
  if (r.contentType) headers.push(`"content-type": ${quoted(r.contentType)}`);
  return [
    `const response = await fetch(${quoted(r.url)}, {`,
    `  method: ${quoted(r.method)},`,
    `  headers: { ${headers.join(", ")} },`,
    ...(sendsBody(r) ? [`  body: ${quoted(r.body)},`] : []),
    "});",
    'console.log(response.status, response.headers.get("x-tollgate-cost"));',
    "console.log(await response.text());",
  ].join("\n");
}

/** For a chat completion of an OpenAI-compatible tool: the SDK at its defaults, its base URL the tool's. */
function openai(r: SnippetRequest): string | null {
  const marker = "/chat/completions";
  const at = r.url.indexOf(marker);
  if (!r.openai || r.method !== "POST" || at < 0 || at + marker.length !== r.url.length) return null;
  let params: unknown;
  try {
    params = JSON.parse(r.body);
  } catch {
    return null;
  }
  if (!params || typeof params !== "object" || Array.isArray(params)) return null;
  const streamed = (params as { stream?: unknown }).stream === true;
  const baseURL = r.url.slice(0, at).replace(/\/v1$/, "");
  return [
    'import OpenAI from "openai";',
    "",
    `const client = new OpenAI({ apiKey: process.env.${SNIPPET_KEY_VARIABLE}, baseURL: ${quoted(baseURL)} });`,
    `const ${streamed ? "stream" : "answer"} = await client.chat.completions.create(${JSON.stringify(params, null, 2)});`,
    ...(streamed
      ? ["for await (const chunk of stream) {", '  process.stdout.write(chunk.choices[0]?.delta?.content ?? "");', "}"]
      : ["console.log(answer.choices[0].message.content);"]),
  ].join("\n");
}

function go(r: SnippetRequest): string {
  return [
    "package main",
    "",
    "import (",
    '\t"fmt"',
    '\t"io"',
    '\t"net/http"',
    '\t"os"',
    '\t"strings"',
    ")",
    "",
    "func main() {",
    `\treq, err := http.NewRequest(${quoted(r.method)}, ${quoted(r.url)}, ${sendsBody(r) ? `strings.NewReader(${quoted(r.body)})` : "nil"})`,
    "\tif err != nil {",
    "\t\tpanic(err)",
    "\t}",
    `\treq.Header.Set("Authorization", "Bearer "+os.Getenv(${quoted(SNIPPET_KEY_VARIABLE)}))`,
    ...(r.contentType ? [`\treq.Header.Set("content-type", ${quoted(r.contentType)})`] : []),
    "\tres, err := http.DefaultClient.Do(req)",
    "\tif err != nil {",
    "\t\tpanic(err)",
    "\t}",
    "\tdefer res.Body.Close()",
    "\tbody, _ := io.ReadAll(res.Body)",
    '\tfmt.Println(res.StatusCode, res.Header.Get("x-tollgate-cost"))',
    "\tfmt.Println(string(body))",
    "}",
  ].join("\n");
}

function java(r: SnippetRequest): string {
  const publisher = sendsBody(r) ? `HttpRequest.BodyPublishers.ofString(${quoted(r.body)})` : "HttpRequest.BodyPublishers.noBody()";
  return [
    "import java.net.URI;",
    "import java.net.http.HttpClient;",
    "import java.net.http.HttpRequest;",
    "import java.net.http.HttpResponse;",
    "",
    "public class TryTool {",
    "    public static void main(String[] args) throws Exception {",
    `        HttpRequest request = HttpRequest.newBuilder(URI.create(${quoted(r.url)}))`,
    `            .header("Authorization", "Bearer " + System.getenv(${quoted(SNIPPET_KEY_VARIABLE)}))`,
    ...(r.contentType ? [`            .header("content-type", ${quoted(r.contentType)})`] : []),
    `            .method(${quoted(r.method)}, ${publisher})`,
    "            .build();",
    "        HttpResponse<String> response = HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());",
    '        System.out.println(response.statusCode() + " " + response.headers().firstValue("x-tollgate-cost").orElse(""));',
    "        System.out.println(response.body());",
    "    }",
    "}",
  ].join("\n");
}

function php(r: SnippetRequest): string {
  const headers = [`'Authorization: Bearer ' . getenv('${SNIPPET_KEY_VARIABLE}')`];
  if (r.contentType) headers.push(phpQuoted(`content-type: ${r.contentType}`));
  return [
    "<?php",
    `$ch = curl_init(${phpQuoted(r.url)});`,
    "curl_setopt_array($ch, [",
    `    CURLOPT_CUSTOMREQUEST => ${phpQuoted(r.method)},`,
    `    CURLOPT_HTTPHEADER => [${headers.join(", ")}],`,
    ...(sendsBody(r) ? [`    CURLOPT_POSTFIELDS => ${phpQuoted(r.body)},`] : []),
    "    CURLOPT_RETURNTRANSFER => true,",
    "]);",
    "$body = curl_exec($ch);",
    'echo curl_getinfo($ch, CURLINFO_RESPONSE_CODE), "\\n", $body, "\\n";',
  ].join("\n");
}

/** Each language's code for the request, in `SNIPPET_LANGUAGES` order; the OpenAI SDK only where it applies. */
export function snippetsFor(request: SnippetRequest): { language: SnippetLanguage; code: string }[] {
  const made: Record<SnippetLanguage, string | null> = {
    curl: curl(request),
    python: python(request),
    javascript: javascript(request),
    openai: openai(request),
    go: go(request),
    java: java(request),
    php: php(request),
  };
  return SNIPPET_LANGUAGES.flatMap((language) => (made[language] === null ? [] : [{ language, code: made[language] }]));
}
