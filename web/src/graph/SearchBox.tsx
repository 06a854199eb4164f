import { useEffect, useRef, useState } from 'react';
import { apiUrl, getJson } from '../api/client';
import type { EntityItem } from '../api/types';
import { typeColor } from './colors';

/** Entity search by name with suggestions from `/graph/entities?search=` as you type. */
export function SearchBox({ onPick, label = 'Search entities' }: { onPick: (entity: EntityItem) => void; label?: string }) {
  const [text, setText] = useState('');
  const [suggestions, setSuggestions] = useState<EntityItem[]>([]);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const seq = useRef(0);

  useEffect(() => {
    const term = text.trim();
    if (!term) {
      setSuggestions([]);
      return;
    }
    const mine = ++seq.current;
    const timer = setTimeout(() => {
      getJson<{ entities: EntityItem[] }>(apiUrl('/api/v1/graph/entities', {}, { search: term, limit: 8 }))
        .then((body) => {
          if (mine !== seq.current) return;
          // Best matches first: names that start with the text, then by degree.
          const lower = term.toLowerCase();
          const ranked = [...body.entities].sort(
            (a, b) =>
              Number(b.name.toLowerCase().startsWith(lower)) - Number(a.name.toLowerCase().startsWith(lower)) || b.degree - a.degree,
          );
          setSuggestions(ranked);
          setActive(0);
        })
        .catch(() => mine === seq.current && setSuggestions([]));
    }, 150);
    return () => clearTimeout(timer);
  }, [text]);

  const pick = (entity: EntityItem) => {
    setText(entity.name);
    setOpen(false);
    onPick(entity);
  };

  return (
    <div className="search" onBlur={() => setTimeout(() => setOpen(false), 150)}>
      <input
        type="search"
        placeholder="Search entities…"
        aria-label={label}
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown') setActive((i) => Math.min(i + 1, suggestions.length - 1));
          else if (e.key === 'ArrowUp') setActive((i) => Math.max(i - 1, 0));
          else if (e.key === 'Enter' && suggestions[active]) pick(suggestions[active]);
          else if (e.key === 'Escape') setOpen(false);
        }}
      />
      {open && suggestions.length > 0 && (
        <ul className="suggestions" role="listbox">
          {suggestions.map((entity, i) => (
            <li
              key={entity.id}
              role="option"
              aria-selected={i === active}
              className={i === active ? 'active' : undefined}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(entity);
              }}
            >
              <span className="swatch" style={{ background: typeColor(entity.entity_type) }} />
              <span className="grow">{entity.name}</span>
              <span className="muted small">
                {entity.entity_type} · {entity.degree}
              </span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
