"use client";
// Assistant text as Markdown (GitHub flavour: tables, task lists, strikethrough, autolinks) with highlighted code
// blocks and a copy button. The model's text is untrusted: react-markdown builds React elements (no
// dangerouslySetInnerHTML), raw HTML in the text is shown as text rather than parsed, and its URL filter drops
// javascript:, data: and other unsafe links. Highlighting uses classes only (app/globals.css), no inline styles,
// so it works under the strict style-src of the CSP. Images are not loaded (a model could track readers with
// them): they become links.
import { memo, useRef, useState, type ComponentProps } from "react";
import ReactMarkdown, { type Components } from "react-markdown";
import rehypeHighlight from "rehype-highlight";
import remarkGfm from "remark-gfm";

function CodeBlock(props: ComponentProps<"pre">) {
  const { children } = props;
  const ref = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState<"idle" | "copied" | "failed">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(ref.current?.textContent ?? "");
      setCopied("copied");
    } catch {
      setCopied("failed");
    }
    setTimeout(() => setCopied("idle"), 2000);
  }
  return (
    <div data-testid="code-block" className="group relative my-2">
      <pre
        ref={ref}
        className="overflow-x-auto rounded-md border border-slate-200 bg-slate-50 p-3 pr-16 font-mono text-xs leading-relaxed dark:border-slate-800 dark:bg-slate-900 [&_code]:bg-transparent [&_code]:p-0 [&_code]:text-[1em]"
      >
        {children}
      </pre>
      <button
        type="button"
        onClick={() => void copy()}
        className="absolute top-1.5 right-1.5 rounded border border-slate-300 bg-white px-2 py-0.5 text-xs text-slate-700 hover:bg-slate-100 dark:border-slate-700 dark:bg-slate-800 dark:text-slate-200 dark:hover:bg-slate-700"
      >
        {copied === "copied" ? "Copied" : copied === "failed" ? "Copy failed" : "Copy"}
        <span className="sr-only"> code</span>
      </button>
    </div>
  );
}

const components: Components = {
  pre: ({ node: _node, ...props }) => <CodeBlock {...props} />,
  // Inline code is a chip; inside a block (CodeBlock's <pre>) the chip is undone and the highlighter's classes apply.
  code: ({ node: _node, className, ...props }) => (
    <code
      className={`rounded bg-slate-100 px-1 py-0.5 font-mono text-[0.85em] dark:bg-slate-800 ${className ?? ""}`}
      {...props}
    />
  ),
  a: ({ node: _node, href, children }) => (
    <a
      href={href}
      target="_blank"
      rel="noopener noreferrer nofollow"
      className="text-sky-700 underline underline-offset-2 dark:text-sky-400"
    >
      {children}
    </a>
  ),
  img: ({ src, alt }) =>
    typeof src === "string" && src !== "" ? (
      <a
        href={src}
        target="_blank"
        rel="noopener noreferrer nofollow"
        className="text-sky-700 underline dark:text-sky-400"
      >
        [image: {alt || src}]
      </a>
    ) : (
      <span>[image{alt ? `: ${alt}` : ""}]</span>
    ),
  p: ({ node: _node, ...props }) => <p className="my-2 first:mt-0 last:mb-0" {...props} />,
  ul: ({ node: _node, ...props }) => <ul className="my-2 list-disc space-y-1 pl-6" {...props} />,
  ol: ({ node: _node, ...props }) => <ol className="my-2 list-decimal space-y-1 pl-6" {...props} />,
  h1: ({ node: _node, ...props }) => <h2 className="mt-3 mb-2 text-lg font-semibold" {...props} />,
  h2: ({ node: _node, ...props }) => <h3 className="mt-3 mb-2 text-base font-semibold" {...props} />,
  h3: ({ node: _node, ...props }) => <h4 className="mt-3 mb-1 font-semibold" {...props} />,
  blockquote: ({ node: _node, ...props }) => (
    <blockquote
      className="my-2 border-l-4 border-slate-300 pl-3 text-slate-700 dark:border-slate-700 dark:text-slate-300"
      {...props}
    />
  ),
  table: ({ node: _node, ...props }) => (
    <div className="my-2 overflow-x-auto">
      <table className="border-collapse text-sm" {...props} />
    </div>
  ),
  th: ({ node: _node, ...props }) => (
    <th
      className="border border-slate-300 bg-slate-50 px-2 py-1 text-left font-semibold dark:border-slate-700 dark:bg-slate-900"
      {...props}
    />
  ),
  td: ({ node: _node, ...props }) => (
    <td className="border border-slate-300 px-2 py-1 dark:border-slate-700" {...props} />
  ),
  hr: () => <hr className="my-3 border-slate-200 dark:border-slate-800" />,
};

const remarkPlugins = [remarkGfm];
// detect: false: only fenced blocks that name their language are highlighted (guessing is slow and often wrong).
const rehypePlugins: ComponentProps<typeof ReactMarkdown>["rehypePlugins"] = [[rehypeHighlight, { detect: false }]];

/** One assistant text part; memoised so that a streaming message re-parses only the part that changed. */
export const Markdown = memo(function Markdown({ text }: { text: string }) {
  return (
    <div data-testid="markdown" className="text-sm leading-relaxed [overflow-wrap:anywhere]">
      <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </ReactMarkdown>
    </div>
  );
});
