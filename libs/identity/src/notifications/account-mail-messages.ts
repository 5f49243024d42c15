import { defineCatalog } from '../pages/catalog';

// In the language of the page that asked for the e-mail; the link follows the body on its own line.

export const accountMailText = defineCatalog('account-mail', {
  ja: {
    greeting: '{name} 様',
    verifySubject: 'メールアドレスの確認',
    verifyBody: 'ご登録ありがとうございます。{hours} 時間以内に次のリンクを開いて、メールアドレスを確認してください:',
    verifyNext: 'その後、管理者がアカウントを確認してから、サインインできるようになります。',
    resetSubject: '新しいパスワードの設定',
    resetBody: '{minutes} 分以内に次のリンクを開いて、新しいパスワードを設定してください:',
    existsSubject: 'アカウントはすでに存在します',
    existsBody:
      'このメールアドレスで新しいアカウントを作成しようとした方がいますが、このアドレスのアカウントはすでに存在します。新しいパスワードを設定するには、{minutes} 分以内に次のリンクを開いてください:',
    ignore: 'お心当たりがない場合は、このメールを無視してください。',
  },
  en: {
    greeting: 'Hello {name},',
    verifySubject: 'Confirm your e-mail address',
    verifyBody: 'Thank you for signing up. Open this link within {hours} hours to confirm your e-mail address:',
    verifyNext: 'After that, an administrator reviews your account before you can sign in.',
    resetSubject: 'Set a new password',
    resetBody: 'Open this link within {minutes} minutes to set a new password:',
    existsSubject: 'You already have an account',
    existsBody:
      'Someone, perhaps you, tried to create an account with this e-mail address, which already has one. To set a new password, open this link within {minutes} minutes:',
    ignore: 'If you did not ask for this, you can ignore this e-mail.',
  },
  fr: {
    greeting: 'Bonjour {name},',
    verifySubject: 'Confirmez votre adresse e-mail',
    verifyBody:
      'Merci de votre inscription. Ouvrez ce lien dans les {hours} heures pour confirmer votre adresse e-mail :',
    verifyNext: 'Ensuite, un administrateur examine votre compte avant que vous puissiez vous connecter.',
    resetSubject: 'Définissez un nouveau mot de passe',
    resetBody: 'Ouvrez ce lien dans les {minutes} minutes pour définir un nouveau mot de passe :',
    existsSubject: 'Vous avez déjà un compte',
    existsBody:
      'Quelqu’un, peut-être vous, a essayé de créer un compte avec cette adresse e-mail, qui en a déjà un. Pour définir un nouveau mot de passe, ouvrez ce lien dans les {minutes} minutes :',
    ignore: 'Si vous n’êtes pas à l’origine de cette demande, ignorez cet e-mail.',
  },
  es: {
    greeting: 'Hola, {name}:',
    verifySubject: 'Confirma tu correo electrónico',
    verifyBody:
      'Gracias por registrarte. Abre este enlace en las próximas {hours} horas para confirmar tu correo electrónico:',
    verifyNext: 'Después, un administrador revisará tu cuenta antes de que puedas iniciar sesión.',
    resetSubject: 'Define una contraseña nueva',
    resetBody: 'Abre este enlace en los próximos {minutes} minutos para definir una contraseña nueva:',
    existsSubject: 'Ya tienes una cuenta',
    existsBody:
      'Alguien, quizá tú, intentó crear una cuenta con este correo electrónico, que ya tiene una. Para definir una contraseña nueva, abre este enlace en los próximos {minutes} minutos:',
    ignore: 'Si no lo has solicitado, puedes ignorar este correo.',
  },
  th: {
    greeting: 'สวัสดี {name}',
    verifySubject: 'ยืนยันที่อยู่อีเมลของคุณ',
    verifyBody: 'ขอบคุณที่ลงทะเบียน เปิดลิงก์นี้ภายใน {hours} ชั่วโมงเพื่อยืนยันที่อยู่อีเมลของคุณ:',
    verifyNext: 'หลังจากนั้น ผู้ดูแลระบบจะตรวจสอบบัญชีของคุณก่อนที่คุณจะลงชื่อเข้าใช้ได้',
    resetSubject: 'ตั้งรหัสผ่านใหม่',
    resetBody: 'เปิดลิงก์นี้ภายใน {minutes} นาทีเพื่อตั้งรหัสผ่านใหม่:',
    existsSubject: 'คุณมีบัญชีอยู่แล้ว',
    existsBody:
      'มีผู้พยายามสร้างบัญชีด้วยที่อยู่อีเมลนี้ ซึ่งอาจเป็นคุณ แต่ที่อยู่นี้มีบัญชีอยู่แล้ว หากต้องการตั้งรหัสผ่านใหม่ ให้เปิดลิงก์นี้ภายใน {minutes} นาที:',
    ignore: 'หากคุณไม่ได้ขอสิ่งนี้ คุณสามารถเพิกเฉยต่ออีเมลนี้ได้',
  },
  id: {
    greeting: 'Halo {name},',
    verifySubject: 'Konfirmasi alamat email Anda',
    verifyBody:
      'Terima kasih telah mendaftar. Buka tautan ini dalam {hours} jam untuk mengonfirmasi alamat email Anda:',
    verifyNext: 'Setelah itu, administrator meninjau akun Anda sebelum Anda dapat masuk.',
    resetSubject: 'Buat kata sandi baru',
    resetBody: 'Buka tautan ini dalam {minutes} menit untuk membuat kata sandi baru:',
    existsSubject: 'Anda sudah memiliki akun',
    existsBody:
      'Seseorang, mungkin Anda, mencoba membuat akun dengan alamat email ini, yang sudah memiliki akun. Untuk membuat kata sandi baru, buka tautan ini dalam {minutes} menit:',
    ignore: 'Jika Anda tidak memintanya, abaikan email ini.',
  },
  ar: {
    greeting: 'مرحبًا {name}،',
    verifySubject: 'أكّد عنوان بريدك الإلكتروني',
    verifyBody: 'شكرًا لتسجيلك. افتح هذا الرابط خلال {hours} ساعة لتأكيد عنوان بريدك الإلكتروني:',
    verifyNext: 'بعد ذلك، يراجع المسؤول حسابك قبل أن تتمكن من تسجيل الدخول.',
    resetSubject: 'تعيين كلمة مرور جديدة',
    resetBody: 'افتح هذا الرابط خلال {minutes} دقيقة لتعيين كلمة مرور جديدة:',
    existsSubject: 'لديك حساب بالفعل',
    existsBody:
      'حاول شخص ما، ربما أنت، إنشاء حساب بعنوان البريد الإلكتروني هذا، وهو مرتبط بحساب موجود. لتعيين كلمة مرور جديدة، افتح هذا الرابط خلال {minutes} دقيقة:',
    ignore: 'إذا لم تطلب ذلك، فيمكنك تجاهل هذه الرسالة.',
  },
  'zh-CN': {
    greeting: '{name}，您好：',
    verifySubject: '确认您的电子邮件地址',
    verifyBody: '感谢您的注册。请在 {hours} 小时内打开此链接以确认您的电子邮件地址：',
    verifyNext: '之后，管理员会先审核您的账户，然后您才能登录。',
    resetSubject: '设置新密码',
    resetBody: '请在 {minutes} 分钟内打开此链接以设置新密码：',
    existsSubject: '您已经有一个账户',
    existsBody:
      '有人（也许是您）尝试使用此电子邮件地址创建账户，但该地址已有账户。如需设置新密码，请在 {minutes} 分钟内打开此链接：',
    ignore: '如果这不是您本人的操作，请忽略此邮件。',
  },
  'zh-TW': {
    greeting: '{name} 您好：',
    verifySubject: '確認您的電子郵件地址',
    verifyBody: '感謝您的註冊。請在 {hours} 小時內開啟此連結以確認您的電子郵件地址：',
    verifyNext: '之後，管理員會先審核您的帳戶，您才能登入。',
    resetSubject: '設定新密碼',
    resetBody: '請在 {minutes} 分鐘內開啟此連結以設定新密碼：',
    existsSubject: '您已經有帳戶',
    existsBody:
      '有人（也許是您）嘗試使用此電子郵件地址建立帳戶，但此地址已有帳戶。如需設定新密碼，請在 {minutes} 分鐘內開啟此連結：',
    ignore: '如果這不是您本人提出的要求，請忽略此郵件。',
  },
  'pt-BR': {
    greeting: 'Olá, {name},',
    verifySubject: 'Confirme seu endereço de e-mail',
    verifyBody: 'Obrigado por se cadastrar. Abra este link em até {hours} horas para confirmar seu endereço de e-mail:',
    verifyNext: 'Depois disso, um administrador analisa sua conta antes que você possa entrar.',
    resetSubject: 'Defina uma nova senha',
    resetBody: 'Abra este link em até {minutes} minutos para definir uma nova senha:',
    existsSubject: 'Você já tem uma conta',
    existsBody:
      'Alguém, talvez você, tentou criar uma conta com este endereço de e-mail, que já tem uma. Para definir uma nova senha, abra este link em até {minutes} minutos:',
    ignore: 'Se você não pediu isso, pode ignorar este e-mail.',
  },
  'de-DE': {
    greeting: 'Hallo {name},',
    verifySubject: 'Bestätigen Sie Ihre E-Mail-Adresse',
    verifyBody:
      'Vielen Dank für Ihre Registrierung. Öffnen Sie diesen Link innerhalb von {hours} Stunden, um Ihre E-Mail-Adresse zu bestätigen:',
    verifyNext: 'Danach wird Ihr Konto geprüft, bevor Sie sich anmelden können.',
    resetSubject: 'Neues Passwort festlegen',
    resetBody: 'Öffnen Sie diesen Link innerhalb von {minutes} Minuten, um ein neues Passwort festzulegen:',
    existsSubject: 'Sie haben bereits ein Konto',
    existsBody:
      'Jemand, vielleicht Sie, hat versucht, mit dieser E-Mail-Adresse ein Konto zu erstellen, obwohl sie bereits eines hat. Um ein neues Passwort festzulegen, öffnen Sie diesen Link innerhalb von {minutes} Minuten:',
    ignore: 'Falls Sie dies nicht angefordert haben, können Sie diese E-Mail ignorieren.',
  },
  'it-IT': {
    greeting: 'Ciao {name},',
    verifySubject: 'Conferma il tuo indirizzo e-mail',
    verifyBody:
      'Grazie per la registrazione. Apri questo link entro {hours} ore per confermare il tuo indirizzo e-mail:',
    verifyNext: 'Dopo, un amministratore esaminerà il tuo account prima che tu possa accedere.',
    resetSubject: 'Imposta una nuova password',
    resetBody: 'Apri questo link entro {minutes} minuti per impostare una nuova password:',
    existsSubject: 'Hai già un account',
    existsBody:
      'Qualcuno, forse tu, ha provato a creare un account con questo indirizzo e-mail, che ne ha già uno. Per impostare una nuova password, apri questo link entro {minutes} minuti:',
    ignore: 'Se non l’hai richiesto tu, puoi ignorare questa e-mail.',
  },
  ko: {
    greeting: '{name}님, 안녕하세요.',
    verifySubject: '이메일 주소를 확인하세요',
    verifyBody: '가입해 주셔서 감사합니다. {hours}시간 안에 이 링크를 열어 이메일 주소를 확인하세요:',
    verifyNext: '그 후 관리자가 계정을 검토하면 로그인할 수 있습니다.',
    resetSubject: '새 비밀번호 설정',
    resetBody: '{minutes}분 안에 이 링크를 열어 새 비밀번호를 설정하세요:',
    existsSubject: '이미 계정이 있습니다',
    existsBody:
      '누군가(본인일 수도 있습니다)가 이 이메일 주소로 계정을 만들려고 했지만, 이 주소에는 이미 계정이 있습니다. 새 비밀번호를 설정하려면 {minutes}분 안에 이 링크를 여세요:',
    ignore: '요청하지 않으셨다면 이 이메일을 무시하셔도 됩니다.',
  },
  vi: {
    greeting: 'Xin chào {name},',
    verifySubject: 'Xác nhận địa chỉ email của bạn',
    verifyBody: 'Cảm ơn bạn đã đăng ký. Hãy mở liên kết này trong vòng {hours} giờ để xác nhận địa chỉ email:',
    verifyNext: 'Sau đó, quản trị viên sẽ xem xét tài khoản trước khi bạn có thể đăng nhập.',
    resetSubject: 'Đặt mật khẩu mới',
    resetBody: 'Hãy mở liên kết này trong vòng {minutes} phút để đặt mật khẩu mới:',
    existsSubject: 'Bạn đã có tài khoản',
    existsBody:
      'Ai đó, có thể là bạn, đã cố tạo tài khoản bằng địa chỉ email này, nhưng địa chỉ này đã có tài khoản. Để đặt mật khẩu mới, hãy mở liên kết này trong vòng {minutes} phút:',
    ignore: 'Nếu bạn không yêu cầu điều này, hãy bỏ qua email này.',
  },
});
