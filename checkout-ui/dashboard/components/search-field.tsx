// A list screen's search box: kept in the address as `search` (url-filters.ts), the words under it
// saying what it finds on that screen.
import { Field } from "../../components/ui.tsx";

export function SearchField(props: { value: string; placeholder: string; hint: string; onSearch: (text: string, how: "type") => void }) {
  return (
    <Field
      label="Search"
      type="search"
      value={props.value}
      placeholder={props.placeholder}
      hint={props.hint}
      onInput={(e) => props.onSearch(e.currentTarget.value, "type")}
    />
  );
}
