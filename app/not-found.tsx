import type { Metadata } from "next";
import { NOT_FOUND_TITLE, NotFoundPanel } from "@/components/not-found-panel";

export const metadata: Metadata = { title: NOT_FOUND_TITLE };

export default function NotFound() {
  return <NotFoundPanel />;
}
