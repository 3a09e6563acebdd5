"use client";

import NextLink from "next/link";
import { useState, type ComponentProps } from "react";

/**
 * Next's <Link> prefetches its route as soon as it is on screen. Every console page shows the sidebar's eleven
 * links and tables of row links, all dynamic routes: a page view cost the server one render of the page and twenty
 * of routes nobody had asked for. This Link prefetches once the pointer or keyboard focus reaches it (Next's
 * documented hover pattern), so a page view costs one render and a click still finds its route fetched.
 */
export default function Link({ prefetch, onMouseEnter, onFocus, ...props }: ComponentProps<typeof NextLink>) {
  const [intent, setIntent] = useState(false);
  return (
    <NextLink
      {...props}
      prefetch={prefetch === false || !intent ? false : prefetch}
      onMouseEnter={(e) => {
        setIntent(true);
        onMouseEnter?.(e);
      }}
      onFocus={(e) => {
        setIntent(true);
        onFocus?.(e);
      }}
    />
  );
}
