import { NotFoundView } from "@/components/not-found-view";

/** A console page's notFound() (an unknown event, entity or source): the answer inside the console's frame. */
export default function ConsoleNotFound() {
  return <NotFoundView />;
}
