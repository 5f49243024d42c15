import type { DataUiResource } from '@fed/contracts/chat-chunk';
import { useMessages } from '../../../lib/i18n/messages';
import { uiResourceText } from './messages';

interface Place {
  id: string;
  name: string;
  note?: string;
  price?: string;
  distance?: string;
  rating?: string;
}

const text = (value: unknown) =>
  typeof value === 'string' && value.trim() ? value : typeof value === 'number' ? String(value) : undefined;

/** The places of a map payload that have an id and a name; anything else in it is left out. */
export function placesOf(data: Record<string, unknown>): Place[] {
  const places = Array.isArray(data.places) ? data.places : [];
  return places.flatMap((entry: unknown): Place[] => {
    if (typeof entry !== 'object' || entry === null) return [];
    const place = entry as Record<string, unknown>;
    const id = text(place.id);
    const name = text(place.name);
    if (!id || !name) return [];
    return [
      {
        id,
        name,
        note: text(place.note),
        price: text(place.price),
        distance: text(place.distance),
        rating: text(place.rating),
      },
    ];
  });
}

/**
 * A first-party map (`kind: map`) drawn by the app: its places with their display text, the centre marked. The
 * payload has no coordinates (document 2), so there are no map tiles and nothing is fetched.
 */
export function PlaceList({ resource }: { resource: DataUiResource }) {
  const t = useMessages(uiResourceText);
  const places = placesOf(resource.data);
  if (places.length === 0) return <p className="ui-resource-alt">{resource.altText}</p>;
  const title = text(resource.data.title) ?? t.places;
  const centre = text(resource.data.center_place_id);
  return (
    <section className="ui-map" aria-label={title} data-testid="ui-map">
      <h4>{title}</h4>
      <ol>
        {places.map((place) => (
          <li key={place.id} className="ui-map-place" aria-current={place.id === centre ? 'location' : undefined}>
            <span className="ui-map-name">{place.name}</span>
            {place.id === centre && <span className="ui-map-centre">{t.centre}</span>}
            {(place.rating || place.price || place.distance) && (
              <span className="ui-map-facts">
                {place.rating && <span>{t.rated(place.rating)}</span>}
                {place.price && <span>{place.price}</span>}
                {place.distance && <span>{place.distance}</span>}
              </span>
            )}
            {place.note && <span className="ui-map-note">{place.note}</span>}
          </li>
        ))}
      </ol>
    </section>
  );
}
