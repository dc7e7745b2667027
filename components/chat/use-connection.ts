"use client";
import { useCallback, useEffect, useState } from "react";

/**
 * Whether the server is reachable, as this tab last saw it: the live event stream failing (the server stopped,
 * the network dropped) or the browser going offline says "reconnecting" at once; the stream opening again says
 * "online". The page never navigates on a drop, so the draft and the transcript stay on screen.
 */
export function useConnection() {
  const [online, setOnline] = useState(true);
  useEffect(() => {
    const down = () => setOnline(false);
    const up = () => setOnline(true);
    window.addEventListener("offline", down);
    window.addEventListener("online", up);
    return () => {
      window.removeEventListener("offline", down);
      window.removeEventListener("online", up);
    };
  }, []);
  const onStreamError = useCallback(() => setOnline(false), []);
  const onStreamOpen = useCallback(() => setOnline(true), []);
  return { online, onStreamError, onStreamOpen };
}
