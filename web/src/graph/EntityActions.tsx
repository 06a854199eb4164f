import { useEffect, useState } from 'react';
import { apiUrl, getJson, sendJson } from '../api/client';
import type { EntityDetail, EntityItem, Ok } from '../api/types';
import { useResource } from '../ui/hooks';
import { EditDialog, plural } from './EditDialog';
import { SearchBox } from './SearchBox';

type Exists = Ok<'/api/v1/graph/entities/exists'>;
type Renamed = Ok<'/api/v1/graph/entities/{id}/rename', 'post'>;
type Merged = Ok<'/api/v1/graph/entities/merge', 'post'>;
type EntityLineage = Ok<'/api/v1/lineage/entities/{entity_name}'>;

type Action = 'rename' | 'describe' | 'merge' | 'split' | 'delete';

interface Props {
  entity: EntityDetail;
  /** Names of related entities by id, for the impact of a deletion. */
  names: Map<string, string>;
  /** The entity now has another id (renamed, or merged into another): select that one. */
  onMoved: (id: string) => void;
  onDeleted: () => void;
  /** The entity changed in place: reload its detail. */
  onChanged: () => void;
}

/**
 * Editing an entity from its panel (editor role and above): rename, description and type, merge with another
 * entity, split a merged alias off, delete. Each dialog says what the change does before it is confirmed; the
 * result reaches every open console through the graph stream.
 */
export function EntityActions({ entity, names, onMoved, onDeleted, onChanged }: Props) {
  const [open, setOpen] = useState<Action | null>(null);
  const close = () => setOpen(null);
  const done = (after: () => void) => () => {
    setOpen(null);
    after();
  };
  const buttons: Array<[Action, string]> = [
    ['rename', 'Rename…'],
    ['describe', 'Edit description…'],
    ['merge', 'Merge…'],
    ['split', 'Split alias…'],
    ['delete', 'Delete…'],
  ];
  return (
    <div className="row wrap entity-actions" role="group" aria-label="Edit entity" data-testid="entity-actions">
      {buttons.map(([action, label]) => (
        <button key={action} className={`small${action === 'delete' ? ' danger' : ''}`} onClick={() => setOpen(action)}>
          {label}
        </button>
      ))}
      {open === 'rename' && <RenameDialog entity={entity} onClose={close} onDone={(id) => done(() => onMoved(id))()} />}
      {open === 'describe' && <DescribeDialog entity={entity} onClose={close} onDone={done(onChanged)} />}
      {open === 'merge' && <MergeDialog entity={entity} onClose={close} onDone={(id) => done(() => onMoved(id))()} />}
      {open === 'split' && <SplitDialog entity={entity} onClose={close} onDone={done(onChanged)} />}
      {open === 'delete' && <DeleteEntityDialog entity={entity} names={names} onClose={close} onDone={done(onDeleted)} />}
    </div>
  );
}

interface DialogProps<T = void> {
  entity: EntityDetail;
  onClose: () => void;
  onDone: (result: T) => void;
}

/** "its 4 relationships and 2 sources". */
function holdings(entity: Pick<EntityDetail, 'relationships' | 'source_count'>): string {
  return `${plural(entity.relationships.length, 'relationship')} and ${plural(entity.source_count, 'source')}`;
}

function RenameDialog({ entity, onClose, onDone }: DialogProps<string>) {
  const [name, setName] = useState(entity.name);
  const [taken, setTaken] = useState<Exists | null | undefined>(null);
  const trimmed = name.trim();
  const unchanged = trimmed === entity.name;

  // Whether the new name belongs to another entity (then renaming merges into it), asked as the name is typed.
  useEffect(() => {
    if (!trimmed || unchanged) {
      setTaken(null);
      return;
    }
    setTaken(undefined);
    const controller = new AbortController();
    const timer = setTimeout(() => {
      getJson<Exists>(apiUrl('/api/v1/graph/entities/exists', {}, { name: trimmed }), controller.signal)
        .then(setTaken)
        .catch(() => !controller.signal.aborted && setTaken(null));
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [trimmed, unchanged]);

  const into = taken?.exists && taken.entity_id !== entity.id ? taken : null;
  const impact = unchanged ? (
    'Type the new name.'
  ) : taken === undefined ? null : into ? (
    <>
      “{into.entity_name}” already exists: renaming <strong>merges</strong> “{entity.name}” into it, with its {holdings(entity)}.
    </>
  ) : (
    <>
      Renames “{entity.name}” to “{trimmed}”; its id follows the name, and its {holdings(entity)} stay with it.
    </>
  );
  return (
    <EditDialog
      title={`Rename “${entity.name}”`}
      testId="rename-dialog"
      impact={impact}
      confirmLabel={into ? 'Rename and merge' : 'Rename'}
      busyLabel="Renaming…"
      ready={!unchanged && Boolean(trimmed) && taken !== undefined}
      onClose={onClose}
      onConfirm={async () => {
        const result = await sendJson<Renamed>('POST', apiUrl('/api/v1/graph/entities/{id}/rename', { id: entity.id }), {
          name: trimmed,
          merge: Boolean(into),
        });
        onDone(result.entity.id);
      }}
    >
      <label className="field">
        New name
        <input value={name} onChange={(e) => setName(e.target.value)} maxLength={512} autoFocus />
      </label>
    </EditDialog>
  );
}

function DescribeDialog({ entity, onClose, onDone }: DialogProps) {
  const [description, setDescription] = useState(entity.description);
  const [type, setType] = useState(entity.entity_type);
  const changed = description !== entity.description || type.trim() !== entity.entity_type;
  return (
    <EditDialog
      title={`Edit “${entity.name}”`}
      testId="describe-dialog"
      impact={
        changed
          ? 'Replaces the description and type; kept as an override that later ingestion of its documents follows.'
          : 'Change the description or the type.'
      }
      confirmLabel="Save"
      busyLabel="Saving…"
      ready={changed && Boolean(type.trim())}
      onClose={onClose}
      onConfirm={async () => {
        await sendJson('PATCH', apiUrl('/api/v1/graph/entities/{id}', { id: entity.id }), {
          description,
          entity_type: type.trim(),
        });
        onDone();
      }}
    >
      <label className="field">
        Type
        <input value={type} onChange={(e) => setType(e.target.value)} maxLength={64} />
      </label>
      <label className="field">
        Description
        <textarea value={description} onChange={(e) => setDescription(e.target.value)} rows={6} maxLength={20000} autoFocus />
      </label>
    </EditDialog>
  );
}

/** What merging `absorbed` into `survivor` does to the relationships, from both entities' details. */
export function mergeImpact(absorbed: EntityDetail, survivor: EntityDetail) {
  const neighbours = new Set(survivor.relationships.map((r) => (r.source === survivor.id ? r.target : r.source)));
  let moved = 0;
  let joined = 0;
  let dropped = 0;
  for (const r of absorbed.relationships) {
    const other = r.source === absorbed.id ? r.target : r.source;
    if (other === survivor.id) dropped++;
    else if (neighbours.has(other)) joined++;
    else moved++;
  }
  return { relationships: absorbed.relationships.length, sources: absorbed.source_count, moved, joined, dropped };
}

function MergeDialog({ entity, onClose, onDone }: DialogProps<string>) {
  const [other, setOther] = useState<EntityItem | null>(null);
  const [keep, setKeep] = useState<'this' | 'other'>('this');
  const detail = useResource(
    (signal) => (other ? getJson<EntityDetail>(apiUrl('/api/v1/graph/entities/{id}', { id: other.id }), signal) : Promise.resolve(null)),
    [other?.id],
  );
  const otherDetail = detail.data && detail.data.id === other?.id ? detail.data : null;
  const same = other?.id === entity.id;
  const [survivor, absorbed] = keep === 'this' ? [entity, otherDetail] : [otherDetail, entity];
  const figures = survivor && absorbed && !same ? mergeImpact(absorbed, survivor) : null;
  const impact = !other ? (
    'Pick the entity to merge with.'
  ) : same ? (
    'Pick another entity.'
  ) : !figures ? null : (
    <>
      <div>
        <strong>
          Merges {plural(figures.relationships, 'relationship')}, {plural(figures.sources, 'source')}
        </strong>{' '}
        of “{absorbed!.name}” into “{survivor!.name}”.
      </div>
      <div className="muted small">
        {figures.moved} moved, {figures.joined} joined with relationships “{survivor!.name}” already has
        {figures.dropped > 0 && `, ${figures.dropped} between the two dropped`}; “{absorbed!.name}” stays an alias and can be split off
        again.
      </div>
    </>
  );
  return (
    <EditDialog
      title={`Merge “${entity.name}”`}
      testId="merge-dialog"
      impact={impact}
      confirmLabel="Merge"
      busyLabel="Merging…"
      ready={figures !== null}
      onClose={onClose}
      onConfirm={async () => {
        const result = await sendJson<Merged>('POST', apiUrl('/api/v1/graph/entities/merge'), {
          source_ids: [absorbed!.id],
          target_id: survivor!.id,
          reason: 'merged in the console',
        });
        onDone(result.entity.id);
      }}
    >
      <div className="field">
        <span>Merge with</span>
        <SearchBox onPick={setOther} label="Entity to merge with" />
      </div>
      {other && !same && (
        <fieldset className="field">
          <legend>Keep</legend>
          <label>
            <input type="radio" name="keep" checked={keep === 'this'} onChange={() => setKeep('this')} /> “{entity.name}”
          </label>
          <label>
            <input type="radio" name="keep" checked={keep === 'other'} onChange={() => setKeep('other')} /> “{other.name}”
          </label>
        </fieldset>
      )}
    </EditDialog>
  );
}

function SplitDialog({ entity, onClose, onDone }: DialogProps) {
  const lineage = useResource(
    (signal) => getJson<EntityLineage>(apiUrl('/api/v1/lineage/entities/{entity_name}', { entity_name: entity.id }), signal),
    [entity.id],
  );
  const aliases = [...new Set((lineage.data?.merge_history ?? []).flatMap((m) => m.merged_from))].filter((a) => a !== entity.id);
  const [alias, setAlias] = useState<string | null>(null);
  const chosen = alias ?? aliases[0] ?? null;
  const impact = lineage.error
    ? 'Its merge history could not be read.'
    : !lineage.data
      ? null
      : aliases.length === 0
        ? `Nothing was merged into “${entity.name}”: it has no alias to split off.`
        : chosen && (
            <>
              “{chosen}” gets back its own entity, with the relationships and sources of the chunks that name it; resolution keeps it apart
              from “{entity.name}” from then on.
            </>
          );
  return (
    <EditDialog
      title={`Split an alias off “${entity.name}”`}
      testId="split-dialog"
      impact={impact}
      confirmLabel="Split off"
      busyLabel="Splitting…"
      ready={Boolean(chosen)}
      onClose={onClose}
      onConfirm={async () => {
        await sendJson('POST', apiUrl('/api/v1/graph/entities/{id}/split', { id: entity.id }), { alias: chosen });
        onDone();
      }}
    >
      {aliases.length > 0 && (
        <fieldset className="field">
          <legend>Alias</legend>
          {aliases.map((a) => (
            <label key={a}>
              <input type="radio" name="alias" checked={chosen === a} onChange={() => setAlias(a)} /> {a}
            </label>
          ))}
        </fieldset>
      )}
    </EditDialog>
  );
}

const LISTED = 12;

function DeleteEntityDialog({ entity, names, onClose, onDone }: DialogProps & { names: Map<string, string> }) {
  const related = entity.relationships.map((r) => {
    const other = r.source === entity.id ? r.target : r.source;
    return { id: r.id, text: `${r.relation_type} ${names.get(other) ?? other}` };
  });
  return (
    <EditDialog
      title={`Delete “${entity.name}”?`}
      testId="delete-entity-dialog"
      danger
      impact={
        <>
          <div>
            <strong>Deletes {plural(related.length, 'relationship')}</strong> with it; its {plural(entity.source_count, 'source')} keep
            their text. This cannot be undone.
          </div>
          {related.length > 0 && (
            <ul className="small related-list">
              {related.slice(0, LISTED).map((r) => (
                <li key={r.id}>{r.text}</li>
              ))}
              {related.length > LISTED && <li className="muted">and {related.length - LISTED} more</li>}
            </ul>
          )}
        </>
      }
      confirmLabel="Delete"
      busyLabel="Deleting…"
      ready
      onClose={onClose}
      onConfirm={async () => {
        await sendJson('DELETE', apiUrl('/api/v1/graph/entities/{id}', { id: entity.id }));
        onDone();
      }}
    />
  );
}
