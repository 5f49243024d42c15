import { detectPii, isPaymentCardNumber, luhnValid } from './pii-detectors';

const found = (detector: Parameters<typeof detectPii>[0], text: string) =>
  detectPii(detector, text).map(({ start, end }) => text.slice(start, end));

describe('PII detectors', () => {
  describe('payment_card', () => {
    it.each([
      ['4111111111111111'],
      ['4111 1111 1111 1111'],
      ['4111-1111-1111-1111'],
      ['5555 5555 5555 4444'],
      ['378282246310005'],
      ['3530111333300000'],
    ])('finds the card number %s (Luhn valid)', (card) => {
      expect(found('payment_card', `pay with ${card} today`)).toEqual([card]);
    });

    it.each([
      ['4111111111111112', 'a wrong check digit'],
      ['1234567812345670', 'a first digit no issuer uses'],
      ['411111111111', 'too few digits'],
      ['41111111111111111111111', 'a longer run of digits'],
      ['4111 1111-1111 1111', 'mixed separators'],
    ])('does not take %s for a card (%s)', (text) => {
      expect(found('payment_card', `ref ${text} end`)).toEqual([]);
    });

    it('checks the Luhn digit', () => {
      expect(luhnValid('79927398713')).toBe(true);
      expect(luhnValid('79927398710')).toBe(false);
      expect(isPaymentCardNumber('4012888888881881')).toBe(true);
    });
  });

  describe('email', () => {
    it('finds addresses, with subdomains and plus tags', () => {
      expect(found('email', 'write to jane.doe+test@mail.example.co.jp or ops@example.com.')).toEqual([
        'jane.doe+test@mail.example.co.jp',
        'ops@example.com',
      ]);
    });

    it.each([['user@localhost'], ['@example.com'], ['a@b'], ['version 1.2@3']])(
      'does not take %s for an address',
      (text) => {
        expect(found('email', text)).toEqual([]);
      },
    );
  });

  describe('phone', () => {
    it.each([
      ['+81 90-1234-5678'],
      ['03-1234-5678'],
      ['(555) 123-4567'],
      ['555-123-4567'],
      ['+14155552671'],
      ['020 7946 0958'],
    ])('finds the phone number %s', (phone) => {
      expect(found('phone', `call ${phone} now`)).toEqual([phone]);
    });

    it.each([
      ['2026-11-27', 'a date'],
      ['192.168.100.200', 'an IP address'],
      ['2024 2025 2026', 'years'],
      ['order 123456789012', 'a plain run of digits'],
      ['4111 1111 1111 1111', 'a card number'],
    ])('does not take %s for a phone number (%s)', (text) => {
      expect(found('phone', text)).toEqual([]);
    });
  });

  it('is linear on hostile input (a long run of near matches ends)', () => {
    const hostile = `${'1-'.repeat(50_000)}x ${'a.'.repeat(50_000)}@`;
    for (const detector of ['email', 'phone', 'payment_card'] as const)
      expect(detectPii(detector, hostile)).toBeDefined();
  });
});
