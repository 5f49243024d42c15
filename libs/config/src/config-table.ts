import { type AppName, appNames, serviceNames } from './app-names';
import { type VariableDefinition, variables } from './variables';
import { needsText } from './work-needs';

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

const table: readonly VariableDefinition[] = variables;

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The README's configuration table (a test keeps the README equal to it). */
export function renderConfigTable(): string {
  const header = '| Variable | Used by | Required | Default | Allowed | Description |\n|---|---|---|---|---|---|';
  const rows = table.map((d) => {
    const cells = [
      `\`${d.name}\`${d.sensitive ? ' (secret)' : ''}`,
      appsText(d.apps),
      requiredText(d),
      d.defaultText,
      d.allowed,
      d.description,
    ];
    return `| ${cells.map(cell).join(' | ')} |`;
  });
  return [header, ...rows].join('\n');
}

/** docs/configuration.md's table of what each app requires (a test keeps the page equal to it). */
export function renderAppRequirements(): string {
  const header =
    '| App | Refuses to start without | Starts without, but its work needs (`config check` fails) |\n|---|---|---|';
  const rows = appNames.map((app) => {
    const required = table.filter((d) => d.requiredIn.includes(app)).map((d) => `\`${d.name}\``);
    const cells = [`\`${app}\``, required.length > 0 ? required.join(', ') : '-', needsText[app] ?? '-'];
    return `| ${cells.map(cell).join(' | ')} |`;
  });
  return [header, ...rows].join('\n');
}
