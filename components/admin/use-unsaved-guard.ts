"use client";
// Keeps an unsaved policy draft from being discarded without a question.
//
// Reload, close and typed URLs: the browser's own `beforeunload` prompt. In-app navigation: the App Router has no
// route-change event to cancel, so link clicks are intercepted in the capture phase on the document, before
// next/link's handler (React listens on the root, below the document) can start the client-side navigation. The
// browser's Back button: while a draft exists the page keeps a second history entry for itself (a copy of the
// router's own state, so the router treats it as its own), and Back first lands on the first copy, this same page,
// where we ask: staying puts the copy back, leaving goes back once more.
// We ask rather than keep the draft in sessionStorage and restore it: a draft can hold MCP server secrets
// (headers, env) in clear text until it is saved, and sessionStorage would keep them readable to every script of
// the origin for the life of the tab, and a silently restored draft can be saved by someone who never saw it.
import { useEffect, useRef } from "react";

export const DISCARD_QUESTION = "Leave this page? Your unsaved policy draft will be discarded.";

function isInAppNavigation(event: MouseEvent): HTMLAnchorElement | undefined {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return undefined;
  const anchor = (event.target as Element | null)?.closest?.("a[href]");
  if (!(anchor instanceof HTMLAnchorElement)) return undefined;
  if (anchor.target && anchor.target !== "_self") return undefined;
  if (anchor.hasAttribute("download")) return undefined;
  const url = new URL(anchor.href, window.location.href);
  if (url.origin !== window.location.origin) return undefined;
  // A link to a fragment of this very page navigates nowhere.
  if (url.pathname === window.location.pathname && url.search === window.location.search && url.hash !== "")
    return undefined;
  return anchor;
}

export function useUnsavedGuard(dirty: boolean, confirm: (question: string) => boolean = (q) => window.confirm(q)) {
  const confirmRef = useRef(confirm);
  useEffect(() => {
    confirmRef.current = confirm;
  });
  useEffect(() => {
    if (!dirty) return;
    const onBeforeUnload = (event: BeforeUnloadEvent) => {
      event.preventDefault();
      // Older Chromium shows the prompt only when returnValue is set.
      event.returnValue = "";
    };
    const onClick = (event: MouseEvent) => {
      if (!isInAppNavigation(event)) return;
      if (confirmRef.current(DISCARD_QUESTION)) return;
      event.preventDefault();
      event.stopPropagation();
    };
    const here = window.location.href;
    let leaving = false;
    window.history.pushState(window.history.state, "", here);
    const onPopState = () => {
      if (leaving || window.location.href !== here) return;
      if (confirmRef.current(DISCARD_QUESTION)) {
        leaving = true;
        window.history.back();
      } else window.history.pushState(window.history.state, "", here);
    };
    window.addEventListener("beforeunload", onBeforeUnload);
    window.addEventListener("popstate", onPopState);
    document.addEventListener("click", onClick, true);
    return () => {
      window.removeEventListener("beforeunload", onBeforeUnload);
      window.removeEventListener("popstate", onPopState);
      document.removeEventListener("click", onClick, true);
      // The draft is gone (saved or discarded) while we are still on the page: drop the extra entry, so Back is one
      // press again.
      if (!leaving && window.location.href === here) window.history.back();
    };
  }, [dirty]);
}
