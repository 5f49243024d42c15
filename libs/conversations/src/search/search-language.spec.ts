import { SEARCH_CONFIGS, searchConfigOf } from './search-language';

describe('the text-search configuration of a message', () => {
  it.each([
    ['english', 'Can you summarize the quarterly report and list the main risks for the next year?'],
    ['german', 'Kannst du mir bitte die Zusammenfassung des Berichts bis morgen schicken?'],
    ['french', 'Pouvez-vous m’envoyer le rapport trimestriel avant la réunion de jeudi ?'],
    ['spanish', '¿Puedes ayudarme a escribir un correo para mi jefe sobre las vacaciones?'],
    ['russian', 'Привет! Как дела? Расскажи, пожалуйста, о погоде в Москве на завтра.'],
  ])('is %s for a sentence in that language', (config, text) => {
    expect(searchConfigOf(text)).toBe(config);
  });

  it('is simple for CJK text, which no stemmer of PostgreSQL splits into words', () => {
    expect(searchConfigOf('東京の天気を教えてください。明日は雨が降りますか？傘を持って行くべきでしょうか。')).toBe(
      'simple',
    );
    expect(searchConfigOf('请帮我总结一下这份报告的主要内容，并列出下一步需要完成的工作和负责人。')).toBe('simple');
  });

  it('is simple for text too short to tell its language, or between two languages', () => {
    expect(searchConfigOf('How do I reset my password?')).toBe('simple');
    expect(searchConfigOf('')).toBe('simple');
    // Danish: franc-min has no Danish, and Dutch and Swedish score alike.
    expect(searchConfigOf('Kan du hjælpe mig med at skrive en e-mail til min chef om ferien?')).toBe('simple');
  });

  it('is always one of the configurations a search asks', () => {
    for (const text of [
      'Merhaba, yarın toplantı saat kaçta başlıyor? Lütfen bana haber ver.',
      '1234 5678 9012 3456 7890 1234 5678 9012 3456',
    ]) {
      expect(SEARCH_CONFIGS).toContain(searchConfigOf(text));
    }
  });

  it('reads only the start of a long text: what follows the first 2,000 characters does not count', () => {
    const english = 'The deployment failed again because the migration timed out. '.repeat(40);
    const german = 'Kannst du mir bitte die Zusammenfassung des Berichts bis morgen schicken? '.repeat(14_000);
    expect(english.length).toBeGreaterThan(2_000);
    expect(german.length).toBeGreaterThan(1_000_000);
    expect(searchConfigOf(german)).toBe('german');
    expect(searchConfigOf(english + german)).toBe('english');
  });
});
