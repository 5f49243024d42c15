import { defineMessages } from '../../lib/i18n/messages';

export const profileText = defineMessages({
  ja: { signOut: 'ログアウト', preferences: '表示の設定' },
  en: { signOut: 'Sign out', preferences: 'Display preferences' },
  fr: { signOut: 'Se déconnecter', preferences: 'Préférences d’affichage' },
  es: { signOut: 'Cerrar sesión', preferences: 'Preferencias de visualización' },
  th: { signOut: 'ออกจากระบบ', preferences: 'การตั้งค่าการแสดงผล' },
  id: { signOut: 'Keluar', preferences: 'Preferensi tampilan' },
  ar: { signOut: 'تسجيل الخروج', preferences: 'تفضيلات العرض' },
  'zh-CN': { signOut: '退出登录', preferences: '显示设置' },
  'zh-TW': { signOut: '登出', preferences: '顯示設定' },
  'pt-BR': { signOut: 'Sair', preferences: 'Preferências de exibição' },
  'de-DE': { signOut: 'Abmelden', preferences: 'Anzeigeeinstellungen' },
  'it-IT': { signOut: 'Esci', preferences: 'Preferenze di visualizzazione' },
  ko: { signOut: '로그아웃', preferences: '표시 설정' },
  vi: { signOut: 'Đăng xuất', preferences: 'Tùy chọn hiển thị' },
});
