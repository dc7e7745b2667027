"use client";
import { useEffect, useState } from "react";

/** The value, once it has stopped changing for `ms`: the matrix is not recomputed on every keystroke. */
export function useDebouncedValue<T>(value: T, ms = 300): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}
