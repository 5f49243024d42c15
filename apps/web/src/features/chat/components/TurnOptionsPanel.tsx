import { useCatalog } from '../catalog';
import { MAX_SKILLS, type TurnOptions } from '../stream/turn-stream';

interface Props {
  options: TurnOptions;
  onChange(options: TurnOptions): void;
}

/** The chat request's options (document 2, "Chat request"), for the next message. */
export function TurnOptionsPanel({ options, onChange }: Props) {
  const catalog = useCatalog();
  const set = (change: Partial<TurnOptions>) => onChange({ ...options, ...change });
  const skills = options.skillIds ?? [];
  const toggleSkill = (skillId: string, on: boolean) =>
    set({ skillIds: on ? [...skills, skillId].slice(0, MAX_SKILLS) : skills.filter((id) => id !== skillId) });

  return (
    <details className="turn-options">
      <summary>Options</summary>
      <div className="turn-options-grid">
        <label>
          Answer format
          <select
            value={options.outputFormat}
            onChange={(event) => set({ outputFormat: event.target.value as TurnOptions['outputFormat'] })}
          >
            <option value="markdown">Formatted (Markdown)</option>
            <option value="plain">Plain text</option>
          </select>
        </label>
        <label>
          Persona
          <select
            value={options.personaKey ?? ''}
            onChange={(event) => set({ personaKey: event.target.value || undefined })}
          >
            <option value="">None</option>
            {catalog.data?.personas.map((persona) => (
              <option key={persona.personaKey} value={persona.personaKey}>
                {persona.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Playbook
          <select
            value={options.playbookId ?? ''}
            onChange={(event) => set({ playbookId: event.target.value || undefined })}
          >
            <option value="">None</option>
            {catalog.data?.playbooks.map((playbook) => (
              <option key={playbook.playbookId} value={playbook.playbookId}>
                {playbook.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent level
          <select
            value={options.agentLevel}
            onChange={(event) => set({ agentLevel: event.target.value as TurnOptions['agentLevel'] })}
          >
            <option value="default">Default</option>
            <option value="high_performance">High performance</option>
          </select>
        </label>
        <label>
          Work report
          <select
            value={options.reportMode}
            onChange={(event) => set({ reportMode: event.target.value as TurnOptions['reportMode'] })}
          >
            <option value="with">With a report</option>
            <option value="without">Without</option>
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.agentMode}
            onChange={(event) => set({ agentMode: event.target.checked })}
          />
          Agent mode (tools)
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.privateMode}
            onChange={(event) => set({ privateMode: event.target.checked })}
          />
          Private mode
        </label>
        {(catalog.data?.skills.length ?? 0) > 0 && (
          <fieldset>
            <legend>Skills (at most {MAX_SKILLS})</legend>
            {catalog.data?.skills.map((skill) => (
              <label key={skill.skillId} className="check" title={skill.description}>
                <input
                  type="checkbox"
                  checked={skills.includes(skill.skillId)}
                  disabled={!skills.includes(skill.skillId) && skills.length >= MAX_SKILLS}
                  onChange={(event) => toggleSkill(skill.skillId, event.target.checked)}
                />
                {skill.name}
              </label>
            ))}
          </fieldset>
        )}
        {catalog.error && <p role="alert">{catalog.error.message}</p>}
      </div>
    </details>
  );
}
