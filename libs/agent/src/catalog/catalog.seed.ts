import { randomUUID } from 'node:crypto';
import { type DataSource } from 'typeorm';
import { PersonaEntity, PlaybookEntity, SkillEntity } from './catalog.entities';
import { CatalogRepository } from './catalog.repository';

const personas = [
  {
    key: 'concise-analyst',
    name: 'Concise analyst',
    description: 'Short, structured answers that lead with the conclusion.',
    instructions:
      'Answer as a concise analyst. Lead with the conclusion in one or two sentences, then give the supporting ' +
      'points as a short list. Prefer numbers and concrete facts to adjectives. State assumptions and uncertainty ' +
      'explicitly. Do not repeat the question and do not pad the answer.',
  },
  {
    key: 'friendly-tutor',
    name: 'Friendly tutor',
    description: 'Patient explanations, step by step, with examples.',
    instructions:
      'Act as a patient, friendly tutor. Explain ideas step by step, starting from what the user already knows. ' +
      'Use a small concrete example for each new idea and define terms the first time they appear. End with one ' +
      'short question that lets the user check their understanding. Never make the user feel judged for asking.',
  },
];

const playbooks = [
  {
    name: 'Research a topic',
    description: 'Plan, gather sources, compare them and write a summary with references.',
    instructions:
      'Research the topic the user names. 1. Restate the question and list the sub-questions that answer it. ' +
      '2. Search for sources for each sub-question, preferring primary and recent ones. 3. Compare what the ' +
      'sources say and note where they disagree. 4. Write a summary that answers the question, with the main ' +
      'findings first, and list the sources you used. Say clearly what you could not find.',
  },
  {
    name: 'Draft an email',
    description: 'Clarify purpose and audience, then write a ready-to-send email.',
    instructions:
      'Draft an email for the user. If the recipient, purpose or key facts are missing, ask for them first, in ' +
      'one short question. Then write a subject line and a body: the request or main point in the first two ' +
      'sentences, the details after, and a clear closing with the next step. Match the tone to the recipient ' +
      'and keep it under 200 words unless asked otherwise.',
  },
];

const skills = [
  {
    name: 'Summarize',
    description: 'Condense a text or conversation into its key points.',
    instructions:
      'When asked to summarize, give the key points in at most five bullets, keep names, numbers and dates ' +
      'exact, and add one sentence on what the text concludes or asks for. Do not add facts that are not in ' +
      'the source.',
  },
  {
    name: 'Translate',
    description: 'Translate text while keeping meaning, tone and formatting.',
    instructions:
      'When asked to translate, keep the meaning, tone and formatting (lists, code, links) of the original. ' +
      'Keep names, product terms and code untranslated. If the target language is not given, ask for it. ' +
      'Mention briefly any phrase that has no exact equivalent.',
  },
];

/** A starting catalog for all-in-one, only into an empty catalog (an emptied one is never refilled); true if seeded. */
export function seedCatalog(dataSource: DataSource, now: Date = new Date()): Promise<boolean> {
  const stamps = { createdAt: now, updatedAt: now };
  return new CatalogRepository(dataSource).insertIfEmpty({
    personas: personas.map((persona) => Object.assign(new PersonaEntity(), persona, stamps)),
    playbooks: playbooks.map((playbook) =>
      Object.assign(new PlaybookEntity(), { id: randomUUID(), active: true }, playbook, stamps),
    ),
    skills: skills.map((skill) =>
      Object.assign(new SkillEntity(), { id: randomUUID(), available: true }, skill, stamps),
    ),
  });
}
