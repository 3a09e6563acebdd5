import type { ComponentProps } from "react";
import { cn } from "./cn";

/**
 * A table from md up; below md (phones) a list of cards: each row a card, each cell a line with its label
 * beside it, so nothing hides behind a sideways scroll. A column shown only from a width (`from`) stays
 * hidden below it in both layouts: its facts are in the row's first cell there.
 */
export type Breakpoint = "sm" | "md" | "lg" | "xl";

/** The only element allowed to scroll sideways (from md up): the page itself never does. */
export function Table({ className, ...props }: ComponentProps<"table">) {
  return (
    <div
      data-slot="table-container"
      className="relative w-full overflow-x-auto rounded-lg border bg-card max-md:overflow-visible max-md:rounded-none max-md:border-0 max-md:bg-transparent"
    >
      <table
        data-slot="table"
        className={cn("w-full caption-bottom border-collapse text-sm max-md:block", className)}
        {...props}
      />
    </div>
  );
}

/** On phones the header row shows only what can be used (a select-all box, a sort button); the labels move into the cards. */
export function TableHeader({ className, ...props }: ComponentProps<"thead">) {
  return (
    <thead
      className={cn(
        "bg-muted/60 [&_tr]:border-b",
        "max-md:block max-md:bg-transparent max-md:has-[button,input]:mb-2",
        "max-md:[&_tr]:flex max-md:[&_tr]:flex-wrap max-md:[&_tr]:border-0 max-md:[&_tr]:bg-transparent max-md:[&_tr]:p-0",
        className,
      )}
      {...props}
    />
  );
}

export function TableBody({ className, ...props }: ComponentProps<"tbody">) {
  return (
    <tbody
      className={cn("md:[&_tr:last-child]:border-0 max-md:flex max-md:flex-col max-md:gap-2", className)}
      {...props}
    />
  );
}

export function TableRow({ className, ...props }: ComponentProps<"tr">) {
  return (
    <tr
      className={cn(
        "border-b transition-colors hover:bg-muted/40 data-[state=selected]:bg-accent",
        "max-md:block max-md:min-w-0 max-md:rounded-lg max-md:border max-md:bg-card max-md:px-3 max-md:py-2",
        className,
      )}
      {...props}
    />
  );
}

const HIDDEN_BELOW: Record<Breakpoint, string> = {
  sm: "hidden md:table-cell",
  md: "hidden md:table-cell",
  lg: "hidden lg:table-cell",
  xl: "hidden xl:table-cell",
};

export function TableHead({ className, from, ...props }: ComponentProps<"th"> & { from?: Breakpoint }) {
  return (
    <th
      className={cn(
        "h-9 whitespace-nowrap px-3 text-left align-middle text-xs font-medium text-muted-foreground",
        from
          ? HIDDEN_BELOW[from]
          : "max-md:hidden max-md:has-[button,input]:flex max-md:has-[button,input]:h-auto max-md:has-[button,input]:p-0",
        className,
      )}
      {...props}
    />
  );
}

// A card's line: the label in a narrow column, the cell's content beside it; a cell without a label spans the card.
// A card is as wide as the screen: any word (a URL in an error, an id) may break rather than push it wider.
const CARD_CELL =
  "max-md:w-auto max-md:min-w-0 max-md:max-w-none max-md:px-0 max-md:py-1 max-md:text-left max-md:[&_*]:[overflow-wrap:anywhere]";
// The label is generated content (from data-label): screen readers say it, and the cell's text stays its value.
const LINE = cn(
  "max-md:grid-cols-[6.5rem_minmax(0,1fr)] max-md:gap-x-3",
  "max-md:before:pt-0.5 max-md:before:text-xs max-md:before:text-muted-foreground max-md:before:content-[attr(data-label)]",
);

/**
 * `label`: the column's name, shown beside the value on phones (a table's header carries it from md up).
 * `from`: the column appears from this width; between sm and md it is a card line already.
 */
export function TableCell({
  className,
  label,
  from,
  children,
  ...props
}: ComponentProps<"td"> & { label?: string; from?: Breakpoint }) {
  const shown = label ? "max-md:grid" : "max-md:block";
  // A row's only cell (an empty table's message) keeps its own spacing and alignment in a card.
  const card = props.colSpan ? "max-md:px-0" : CARD_CELL;
  const display =
    from === undefined
      ? shown
      : from === "sm"
        ? cn(HIDDEN_BELOW.sm, label ? "sm:max-md:grid" : "sm:max-md:block")
        : HIDDEN_BELOW[from];
  return (
    <td
      data-label={label}
      className={cn("px-3 py-2 align-top max-md:[overflow-wrap:anywhere]", card, display, label && LINE, className)}
      {...props}
    >
      {/* From md up the wrapper is display: contents, so the cell lays out as if it held the content itself. */}
      {label ? <div className="min-w-0 md:contents">{children}</div> : children}
    </td>
  );
}
