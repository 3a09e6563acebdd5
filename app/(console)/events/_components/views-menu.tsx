"use client";

import { BookmarkIcon, CheckIcon, LinkIcon, TrashIcon } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { parseJson, useLocalStorage } from "@/components/use-local-storage";
import { Button } from "@/components/ui/button";
import {
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuLabel,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
} from "@/components/ui/dropdown-menu";

const PRESETS = [
  { name: "Dead: waiting for a person", href: "/events?status=dead" },
  { name: "Retrying", href: "/events?status=failed" },
  { name: "Waiting for a worker", href: "/events?status=claimed" },
  { name: "Everything", href: "/events" },
];

interface SavedView {
  name: string;
  href: string;
}
// Saved views are this browser's (localStorage); a view to share is its link, which "Copy link" gives.
const KEY = "ledger.events.views";
const parseViews = (raw: string): SavedView[] => {
  const v = parseJson(raw, []);
  return Array.isArray(v)
    ? v.filter((x: Partial<SavedView>): x is SavedView => typeof x?.name === "string" && typeof x?.href === "string")
    : [];
};

/** Preset views, this browser's saved views, and the current view's link to share. */
export function ViewsMenu() {
  const router = useRouter();
  const [saved, setSaved] = useLocalStorage(KEY, "[]", parseViews);
  const write = (views: SavedView[]) => setSaved(views.slice(0, 20));
  const [copied, setCopied] = useState(false);
  const here = () => `${window.location.pathname}${window.location.search}`;
  const save = () => {
    const name = window.prompt("Name this view", "")?.trim();
    if (!name) return;
    write([{ name: name.slice(0, 60), href: here() }, ...saved.filter((v) => v.name !== name)]);
  };
  const copy = () => {
    void navigator.clipboard?.writeText(window.location.href).then(() => {
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    });
  };
  return (
    <DropdownMenu>
      <DropdownMenuTrigger asChild>
        <Button variant="outline">
          <BookmarkIcon /> Views
        </Button>
      </DropdownMenuTrigger>
      <DropdownMenuContent className="w-64">
        <DropdownMenuLabel>Views</DropdownMenuLabel>
        {PRESETS.map((p) => (
          <DropdownMenuItem key={p.href} onSelect={() => router.push(p.href)}>
            {p.name}
          </DropdownMenuItem>
        ))}
        {saved.length > 0 && <DropdownMenuSeparator />}
        {saved.map((v) => (
          <DropdownMenuItem key={v.name} onSelect={() => router.push(v.href)} className="justify-between">
            <span className="truncate">{v.name}</span>
            <button
              type="button"
              aria-label={`Forget view ${v.name}`}
              className="cursor-pointer rounded p-0.5 text-muted-foreground hover:text-destructive"
              onClick={(e) => {
                e.stopPropagation();
                write(saved.filter((x) => x.name !== v.name));
              }}
            >
              <TrashIcon />
            </button>
          </DropdownMenuItem>
        ))}
        <DropdownMenuSeparator />
        <DropdownMenuItem onSelect={save}>
          <BookmarkIcon /> Save this view…
        </DropdownMenuItem>
        <DropdownMenuItem
          onSelect={(e) => {
            e.preventDefault();
            copy();
          }}
        >
          {copied ? <CheckIcon /> : <LinkIcon />} {copied ? "Link copied" : "Copy link to this view"}
        </DropdownMenuItem>
      </DropdownMenuContent>
    </DropdownMenu>
  );
}
