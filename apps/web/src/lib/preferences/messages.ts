import { defineMessages } from '../i18n/messages';

export const preferencesText = defineMessages({
  ja: { language: '言語', theme: 'テーマ', system: 'システムに合わせる', light: 'ライト', dark: 'ダーク' },
  en: { language: 'Language', theme: 'Theme', system: 'System', light: 'Light', dark: 'Dark' },
  fr: { language: 'Langue', theme: 'Thème', system: 'Système', light: 'Clair', dark: 'Sombre' },
  es: { language: 'Idioma', theme: 'Tema', system: 'Sistema', light: 'Claro', dark: 'Oscuro' },
  th: { language: 'ภาษา', theme: 'ธีม', system: 'ตามระบบ', light: 'สว่าง', dark: 'มืด' },
  id: { language: 'Bahasa', theme: 'Tema', system: 'Ikuti sistem', light: 'Terang', dark: 'Gelap' },
  ar: { language: 'اللغة', theme: 'المظهر', system: 'حسب النظام', light: 'فاتح', dark: 'داكن' },
  'zh-CN': { language: '语言', theme: '主题', system: '跟随系统', light: '浅色', dark: '深色' },
  'zh-TW': { language: '語言', theme: '主題', system: '跟隨系統', light: '淺色', dark: '深色' },
  'pt-BR': { language: 'Idioma', theme: 'Tema', system: 'Sistema', light: 'Claro', dark: 'Escuro' },
  'de-DE': { language: 'Sprache', theme: 'Design', system: 'Wie das System', light: 'Hell', dark: 'Dunkel' },
  'it-IT': { language: 'Lingua', theme: 'Tema', system: 'Sistema', light: 'Chiaro', dark: 'Scuro' },
  ko: { language: '언어', theme: '테마', system: '시스템 설정', light: '라이트', dark: '다크' },
  vi: { language: 'Ngôn ngữ', theme: 'Giao diện', system: 'Theo hệ thống', light: 'Sáng', dark: 'Tối' },
});
