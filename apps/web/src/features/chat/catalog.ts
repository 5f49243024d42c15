import { useQuery } from '@tanstack/react-query';
import { apiJson } from '../../lib/api';
import { useAuth } from '../../lib/auth/auth-context';

interface Listing {
  name: string;
  description: string;
}
export type Persona = Listing & { personaKey: string };
export type Playbook = Listing & { playbookId: string };
export type Skill = Listing & { skillId: string };

interface Catalog {
  personas: Persona[];
  playbooks: Playbook[];
  skills: Skill[];
}

/** What the chat request's personaKey, playbookId and skillIds may name (GET /api/v1/personas, playbooks, skills). */
export function useCatalog() {
  const auth = useAuth();
  return useQuery({
    queryKey: ['catalog'],
    staleTime: 5 * 60_000,
    queryFn: async (): Promise<Catalog> => {
      const token = await auth.accessToken();
      const [personas, playbooks, skills] = await Promise.all([
        apiJson<{ personas: Persona[] }>('/api/v1/personas?limit=100', token),
        apiJson<{ playbooks: Playbook[] }>('/api/v1/playbooks?limit=100', token),
        apiJson<{ skills: Skill[] }>('/api/v1/skills?limit=100', token),
      ]);
      return { personas: personas.personas, playbooks: playbooks.playbooks, skills: skills.skills };
    },
  });
}
