"use client";
import { createContext, useCallback, useContext, useMemo, useState } from "react";

// Which tool cards a reader opened, by tool-call id. Held above the transcript because the transcript is swapped
// for the stored one when a turn ends (server message ids replace the stream's, so every row remounts): a card
// the reader opened while the call ran must stay open, not fold shut under their cursor.
type OpenCards = { isOpen: (callId: string) => boolean; setOpen: (callId: string, open: boolean) => void };

export const OpenCardsContext = createContext<OpenCards | null>(null);

export function useOpenCardsState(): OpenCards {
  const [open, setOpenIds] = useState<ReadonlySet<string>>(() => new Set());
  const setOpen = useCallback((callId: string, next: boolean) => {
    setOpenIds((current) => {
      if (current.has(callId) === next) return current;
      const copy = new Set(current);
      if (next) copy.add(callId);
      else copy.delete(callId);
      return copy;
    });
  }, []);
  return useMemo(() => ({ isOpen: (callId: string) => open.has(callId), setOpen }), [open, setOpen]);
}

/** The card's open state: shared by call id inside a chat, the element's own state elsewhere (read-only pages). */
export function useOpenCard(callId: string | undefined): {
  open: boolean | undefined;
  onToggle: (open: boolean) => void;
} {
  const cards = useContext(OpenCardsContext);
  if (!cards || !callId) return { open: undefined, onToggle: () => {} };
  return { open: cards.isOpen(callId), onToggle: (next) => cards.setOpen(callId, next) };
}
