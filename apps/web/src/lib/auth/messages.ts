import { defineMessages } from '../i18n/messages';

export const authText = defineMessages({
  ja: { notSignedIn: 'ログインしていません。もう一度ログインしてください。' },
  en: { notSignedIn: 'You are not signed in. Please sign in again.' },
  fr: { notSignedIn: 'Vous n’êtes pas connecté. Veuillez vous reconnecter.' },
  es: { notSignedIn: 'No has iniciado sesión. Vuelve a iniciar sesión.' },
  th: { notSignedIn: 'คุณยังไม่ได้เข้าสู่ระบบ โปรดเข้าสู่ระบบอีกครั้ง' },
  id: { notSignedIn: 'Anda belum masuk. Silakan masuk lagi.' },
  ar: { notSignedIn: 'لم تسجّل الدخول. يُرجى تسجيل الدخول مرة أخرى.' },
  'zh-CN': { notSignedIn: '您尚未登录，请重新登录。' },
  'zh-TW': { notSignedIn: '您尚未登入，請重新登入。' },
  'pt-BR': { notSignedIn: 'Você não está conectado. Entre novamente.' },
  'de-DE': { notSignedIn: 'Sie sind nicht angemeldet. Bitte melden Sie sich erneut an.' },
  'it-IT': { notSignedIn: 'Non hai effettuato l’accesso. Accedi di nuovo.' },
  ko: { notSignedIn: '로그인되어 있지 않습니다. 다시 로그인하세요.' },
  vi: { notSignedIn: 'Bạn chưa đăng nhập. Vui lòng đăng nhập lại.' },
});
