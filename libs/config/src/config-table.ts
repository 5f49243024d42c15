import { type AppName, serviceNames } from './app-names';
import { type VariableDefinition, variables } from './variables';

const allServices = (apps: readonly AppName[]) => serviceNames.every((s) => apps.includes(s));

function appsText(apps: readonly AppName[]): string {
  const services = allServices(apps);
  const extra = apps.filter((a) => !(serviceNames as readonly string[]).includes(a));
  const parts = services ? ['all services', ...extra] : [...apps];
  return parts.join(', ');
}

function requiredText(d: VariableDefinition): string {
  if (d.requiredIn.length === 0) return 'no';
  return allServices(d.requiredIn) ? 'in services' : d.requiredIn.join(', ');
}

/** The README's configuration table, rendered from the definitions (a test keeps the README equal to it). */
export function renderConfigTable(): string {
  const header = '| Variable | Used by | Required | Default | Allowed | Description |\n|---|---|---|---|---|---|';
  const rows = (variables as readonly VariableDefinition[]).map((d) => {
    const cells = [
      `\`${d.name}\`${d.sensitive ? ' (secret)' : ''}`,
      appsText(d.apps),
      requiredText(d),
      d.defaultText,
      d.allowed,
      d.description,
    ];
    return `| ${cells.map((c) => c.replace(/\|/g, '\\|')).join(' | ')} |`;
  });
  return [header, ...rows].join('\n');
}
