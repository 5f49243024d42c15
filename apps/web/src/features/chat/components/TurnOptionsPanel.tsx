import { useMessages } from '../../../lib/i18n/messages';
import { useCatalog } from '../catalog';
import { chatText } from '../messages';
import { MAX_SKILLS, type TurnOptions } from '../stream/turn-stream';

interface Props {
  options: TurnOptions;
  onChange(options: TurnOptions): void;
}

/** The chat request's options (document 2, "Chat request"), for the next message. */
export function TurnOptionsPanel({ options, onChange }: Props) {
  const catalog = useCatalog();
  const t = useMessages(chatText);
  const set = (change: Partial<TurnOptions>) => onChange({ ...options, ...change });
  const skills = options.skillIds ?? [];
  const toggleSkill = (skillId: string, on: boolean) =>
    set({ skillIds: on ? [...skills, skillId].slice(0, MAX_SKILLS) : skills.filter((id) => id !== skillId) });

  return (
    <details className="turn-options">
      <summary>{t.options}</summary>
      <div className="turn-options-grid">
        <label>
          {t.answerFormat}
          <select
            value={options.outputFormat}
            onChange={(event) => set({ outputFormat: event.target.value as TurnOptions['outputFormat'] })}
          >
            <option value="markdown">{t.formatMarkdown}</option>
            <option value="plain">{t.formatPlain}</option>
          </select>
        </label>
        <label>
          {t.persona}
          <select
            value={options.personaKey ?? ''}
            onChange={(event) => set({ personaKey: event.target.value || undefined })}
          >
            <option value="">{t.none}</option>
            {catalog.data?.personas.map((persona) => (
              <option key={persona.personaKey} value={persona.personaKey}>
                {persona.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.playbook}
          <select
            value={options.playbookId ?? ''}
            onChange={(event) => set({ playbookId: event.target.value || undefined })}
          >
            <option value="">{t.none}</option>
            {catalog.data?.playbooks.map((playbook) => (
              <option key={playbook.playbookId} value={playbook.playbookId}>
                {playbook.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          {t.agentLevel}
          <select
            value={options.agentLevel}
            onChange={(event) => set({ agentLevel: event.target.value as TurnOptions['agentLevel'] })}
          >
            <option value="default">{t.levelDefault}</option>
            <option value="high_performance">{t.levelHigh}</option>
          </select>
        </label>
        <label>
          {t.workReport}
          <select
            value={options.reportMode}
            onChange={(event) => set({ reportMode: event.target.value as TurnOptions['reportMode'] })}
          >
            <option value="with">{t.withReport}</option>
            <option value="without">{t.withoutReport}</option>
          </select>
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.agentMode}
            onChange={(event) => set({ agentMode: event.target.checked })}
          />
          {t.agentMode}
        </label>
        <label className="check">
          <input
            type="checkbox"
            checked={options.privateMode}
            onChange={(event) => set({ privateMode: event.target.checked })}
          />
          {t.privateMode}
        </label>
        {(catalog.data?.skills.length ?? 0) > 0 && (
          <fieldset>
            <legend>{t.skills(MAX_SKILLS)}</legend>
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
