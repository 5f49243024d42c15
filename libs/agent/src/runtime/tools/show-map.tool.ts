import type { DataUiResource } from '@fed/contracts';
import { type AgentTool, type ToolOutcome, quoted } from './agent-tool';

export const SHOW_MAP = 'show_map';

interface MapPlace {
  id: string;
  name: string;
  note?: string;
  price?: string;
  distance?: string;
  rating?: number;
}

interface ShowMapArgs {
  title?: string;
  center_place_id?: string;
  places: MapPlace[];
}

const text = (maxLength: number, description: string) => ({ type: 'string', minLength: 1, maxLength, description });

/** Places on a client-drawn map (document 2, `kind: map`); display text only, as the schema refuses coordinates. */
export class ShowMapTool implements AgentTool<ShowMapArgs> {
  readonly name = SHOW_MAP;
  readonly description =
    'Show the user a map of places (shops, hotels, sights) beside your answer. Give each place an id and ' +
    'its name, optionally a short note, price, distance and rating. Never give coordinates or addresses.';
  readonly parameters = {
    type: 'object',
    properties: {
      title: text(200, 'What the map shows.'),
      center_place_id: text(128, 'The id of the place the map centres on; one of the places.'),
      places: {
        type: 'array',
        minItems: 1,
        maxItems: 50,
        items: {
          type: 'object',
          properties: {
            id: text(128, 'Unique among the places.'),
            name: text(200, 'Display name.'),
            note: text(500, 'A short note.'),
            price: text(50, 'Price as shown, e.g. "€€" or "120 EUR".'),
            distance: text(50, 'Distance as shown, e.g. "1.2 km".'),
            rating: { type: 'number', minimum: 0, maximum: 5, description: 'From 0 to 5.' },
          },
          required: ['id', 'name'],
          additionalProperties: false,
        },
      },
    },
    required: ['places'],
    additionalProperties: false,
  };

  describe(args: ShowMapArgs): { title: string; description: string } {
    return { title: 'Showing a map', description: args.title ? quoted(args.title) : placeCount(args.places.length) };
  }

  async run(args: ShowMapArgs): Promise<ToolOutcome> {
    const refusal = refusalOf(args);
    if (refusal) {
      return { status: 'failed', error: refusal, label: { title: 'Could not show a map', description: refusal } };
    }
    const resource: DataUiResource = {
      type: 'data',
      origin: 'first-party',
      altText: altTextOf(args),
      kind: 'map',
      data: {
        places: args.places,
        ...(args.center_place_id === undefined ? {} : { center_place_id: args.center_place_id }),
        ...(args.title === undefined ? {} : { title: args.title }),
      },
      generated_at: new Date().toISOString(),
    };
    return {
      status: 'completed',
      content: `The user now sees a map of ${placeCount(args.places.length)}${args.title ? ` titled ${quoted(args.title)}` : ''}.`,
      label: { title: 'Showed a map', description: args.title ? quoted(args.title) : placeCount(args.places.length) },
      uiResource: { resource },
    };
  }
}

function refusalOf(args: ShowMapArgs): string | undefined {
  const ids = new Set(args.places.map((place) => place.id));
  if (ids.size !== args.places.length) return 'Each place needs an id of its own.';
  if (args.center_place_id !== undefined && !ids.has(args.center_place_id)) {
    return 'center_place_id must be the id of one of the places.';
  }
  return undefined;
}

function placeCount(count: number): string {
  return count === 1 ? '1 place' : `${count} places`;
}

/** "Map: Coffee near you: Alma, Brew and 3 more places": what a client that draws no map shows. */
export function altTextOf(args: ShowMapArgs): string {
  const names = args.places.map((place) => place.name.replace(/\s+/g, ' ').trim());
  let listed: string;
  if (names.length <= 3) {
    listed = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  } else {
    const more = names.length - 2;
    listed = `${names.slice(0, 2).join(', ')} and ${more} more ${more === 1 ? 'place' : 'places'}`;
  }
  const title = args.title?.replace(/\s+/g, ' ').trim();
  return title ? `Map: ${title}: ${listed}` : `Map: ${listed}`;
}
