import { buildProgram, commandNames } from './program';

const namesOf = (argv: string[]) => buildProgram(argv).commands.map((command) => command.name());

describe('the program, loading only the command it runs', () => {
  it('knows every command its modules register, in the order of the help', () => {
    expect(namesOf(['node', 'platformctl'])).toEqual(commandNames);
  });

  it('registers the named command (and the others of its module) alone', () => {
    for (const name of commandNames) expect(namesOf(['node', 'platformctl', name])).toContain(name);
    expect(namesOf(['node', 'platformctl', 'users'])).toEqual(['users']);
    expect(namesOf(['node', 'platformctl', 'skills'])).toEqual(['personas', 'playbooks', 'skills']);
  });

  it('registers every command for help and for a name it does not know', () => {
    expect(namesOf(['node', 'platformctl', '--help'])).toEqual(commandNames);
    expect(namesOf(['node', 'platformctl', 'nonsense'])).toEqual(commandNames);
  });
});
