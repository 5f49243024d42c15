import { notificationLocale, renderNotification } from './notification-templates';

describe('approval and rejection e-mails (templates)', () => {
  const alice = { email: 'alice@example.com', displayName: 'Alice <script>alert(1)</script> & Co' };

  it('writes the approval notification in Japanese and in English', () => {
    expect(renderNotification('user_approved', 'ja', alice).subject).toBe('アカウントが承認されました');
    expect(renderNotification('user_approved', 'en', alice).subject).toBe('Your account has been approved');
    expect(renderNotification('user_rejected', 'ja', alice).subject).toBe('アカウントの承認が取り消されました');
    expect(renderNotification('user_rejected', 'en', alice).text).toContain('pending again');
  });

  it("escapes the user's name in HTML and keeps it as written in the text", () => {
    const message = renderNotification('user_approved', 'en', alice);
    expect(message.to).toBe('alice@example.com');
    expect(message.html).toContain('Alice &#60;script&#62;alert(1)&#60;/script&#62; &#38; Co');
    expect(message.html).not.toContain('<script>');
    expect(message.text).toContain('Hello Alice <script>alert(1)</script> & Co,');
  });

  it('picks Japanese for ja tags, English for the other login-page languages, the default when none is given', () => {
    expect(notificationLocale('ja-JP', 'en')).toBe('ja');
    expect(notificationLocale('fr', 'ja')).toBe('en');
    expect(notificationLocale(undefined, 'ja')).toBe('ja');
  });
});
