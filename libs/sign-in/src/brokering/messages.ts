import { defineCatalog } from '@fed/identity/internal';

// All error pages: the happy path only redirects.
export const idpText = defineCatalog('identity-provider', {
  ja: {
    title: '組織アカウントでのログイン',
    unreachable: '組織のログインサービスに現在接続できません。数分後にもう一度お試しください。',
    misconfigured: '組織アカウントでのログインが正しく設定されていません。管理者にお問い合わせください。',
    rejected:
      '組織のログインサービスからの応答を検証できなかったため、ログインしませんでした。管理者にお問い合わせください。',
    expired:
      'このログインは期限切れか、別のブラウザーで開始されました。アプリケーションに戻って、もう一度ログインしてください。',
    accountExists:
      'このメールアドレスのアカウントはすでに存在しますが、組織のログインとは連携されていません。管理者にお問い合わせください。',
    emailOutsideDomains:
      '組織のログインサービスから、組織のドメイン外のメールアドレスが提供されました。管理者にお問い合わせください。',
    emailMissing: '組織のログインサービスからメールアドレスが提供されませんでした。管理者にお問い合わせください。',
    notApproved: 'あなたのアカウントはまだ承認されていません。',
    tenantDisabled: 'あなたの組織のログインは現在無効になっています。',
  },
  en: {
    title: 'Sign in with your organization',
    unreachable: "Your organization's sign-in service cannot be reached right now. Please try again in a few minutes.",
    misconfigured: 'Sign-in with your organization is not set up correctly. Please contact your administrator.',
    rejected:
      "Your organization's sign-in service sent an answer that could not be verified, so you were not signed in. Please contact your administrator.",
    expired:
      'This sign-in has expired or was started in another browser. Go back to the application and sign in again.',
    accountExists:
      "An account with this e-mail address already exists and is not linked to your organization's sign-in. Please contact your administrator.",
    emailOutsideDomains:
      "Your organization's sign-in service gave an e-mail address outside your organization's domains. Please contact your administrator.",
    emailMissing:
      "Your organization's sign-in service did not provide an e-mail address. Please contact your administrator.",
    notApproved: 'Your account has not been approved yet.',
    tenantDisabled: 'Sign-in for your organization is currently disabled.',
  },
  fr: {
    title: 'Connexion avec votre organisation',
    unreachable:
      'Le service de connexion de votre organisation est injoignable pour le moment. Réessayez dans quelques minutes.',
    misconfigured:
      "La connexion avec votre organisation n'est pas configurée correctement. Contactez votre administrateur.",
    rejected:
      "La réponse du service de connexion de votre organisation n'a pas pu être vérifiée : vous n'êtes pas connecté. Contactez votre administrateur.",
    expired:
      "Cette connexion a expiré ou a été commencée dans un autre navigateur. Revenez à l'application et connectez-vous à nouveau.",
    accountExists:
      "Un compte avec cette adresse e-mail existe déjà et n'est pas lié à la connexion de votre organisation. Contactez votre administrateur.",
    emailOutsideDomains:
      'Le service de connexion de votre organisation a fourni une adresse e-mail hors des domaines de votre organisation. Contactez votre administrateur.',
    emailMissing:
      "Le service de connexion de votre organisation n'a pas fourni d'adresse e-mail. Contactez votre administrateur.",
    notApproved: "Votre compte n'a pas encore été approuvé.",
    tenantDisabled: 'La connexion pour votre organisation est actuellement désactivée.',
  },
  es: {
    title: 'Iniciar sesión con su organización',
    unreachable:
      'No se puede acceder ahora al servicio de inicio de sesión de su organización. Inténtelo de nuevo en unos minutos.',
    misconfigured:
      'El inicio de sesión con su organización no está configurado correctamente. Póngase en contacto con su administrador.',
    rejected:
      'No se pudo verificar la respuesta del servicio de inicio de sesión de su organización, así que no ha iniciado sesión. Póngase en contacto con su administrador.',
    expired:
      'Este inicio de sesión ha caducado o se inició en otro navegador. Vuelva a la aplicación e inicie sesión de nuevo.',
    accountExists:
      'Ya existe una cuenta con esta dirección de correo electrónico y no está vinculada al inicio de sesión de su organización. Póngase en contacto con su administrador.',
    emailOutsideDomains:
      'El servicio de inicio de sesión de tu organización dio una dirección de correo fuera de los dominios de tu organización. Contacta con tu administrador.',
    emailMissing:
      'El servicio de inicio de sesión de su organización no proporcionó una dirección de correo electrónico. Póngase en contacto con su administrador.',
    notApproved: 'Su cuenta aún no ha sido aprobada.',
    tenantDisabled: 'El inicio de sesión de su organización está desactivado en este momento.',
  },
  th: {
    title: 'เข้าสู่ระบบด้วยบัญชีองค์กร',
    unreachable: 'ไม่สามารถเชื่อมต่อบริการเข้าสู่ระบบขององค์กรของคุณได้ในขณะนี้ โปรดลองอีกครั้งในอีกสักครู่',
    misconfigured: 'การเข้าสู่ระบบด้วยบัญชีองค์กรยังตั้งค่าไม่ถูกต้อง โปรดติดต่อผู้ดูแลระบบ',
    rejected: 'ไม่สามารถตรวจสอบคำตอบจากบริการเข้าสู่ระบบขององค์กรของคุณได้ จึงไม่ได้เข้าสู่ระบบ โปรดติดต่อผู้ดูแลระบบ',
    expired: 'การเข้าสู่ระบบนี้หมดอายุแล้วหรือเริ่มต้นจากเบราว์เซอร์อื่น โปรดกลับไปที่แอปพลิเคชันแล้วเข้าสู่ระบบอีกครั้ง',
    accountExists: 'มีบัญชีที่ใช้อีเมลนี้อยู่แล้ว และยังไม่ได้เชื่อมโยงกับการเข้าสู่ระบบขององค์กร โปรดติดต่อผู้ดูแลระบบ',
    emailOutsideDomains: 'บริการลงชื่อเข้าใช้ขององค์กรให้ที่อยู่อีเมลที่อยู่นอกโดเมนขององค์กร โปรดติดต่อผู้ดูแลระบบ',
    emailMissing: 'บริการเข้าสู่ระบบขององค์กรของคุณไม่ได้ให้ที่อยู่อีเมล โปรดติดต่อผู้ดูแลระบบ',
    notApproved: 'บัญชีของคุณยังไม่ได้รับการอนุมัติ',
    tenantDisabled: 'การเข้าสู่ระบบสำหรับองค์กรของคุณถูกปิดใช้งานอยู่ในขณะนี้',
  },
  id: {
    title: 'Masuk dengan akun organisasi',
    unreachable:
      'Layanan masuk organisasi Anda tidak dapat dihubungi saat ini. Silakan coba lagi dalam beberapa menit.',
    misconfigured: 'Masuk dengan akun organisasi belum diatur dengan benar. Silakan hubungi administrator Anda.',
    rejected:
      'Jawaban dari layanan masuk organisasi Anda tidak dapat diverifikasi, jadi Anda tidak masuk. Silakan hubungi administrator Anda.',
    expired: 'Proses masuk ini sudah kedaluwarsa atau dimulai di browser lain. Kembali ke aplikasi dan masuk lagi.',
    accountExists:
      'Akun dengan alamat email ini sudah ada dan tidak terhubung dengan layanan masuk organisasi Anda. Silakan hubungi administrator Anda.',
    emailOutsideDomains:
      'Layanan masuk organisasi Anda memberikan alamat email di luar domain organisasi Anda. Hubungi administrator Anda.',
    emailMissing: 'Layanan masuk organisasi Anda tidak memberikan alamat email. Silakan hubungi administrator Anda.',
    notApproved: 'Akun Anda belum disetujui.',
    tenantDisabled: 'Layanan masuk untuk organisasi Anda sedang dinonaktifkan.',
  },
  ar: {
    title: 'تسجيل الدخول عبر مؤسستك',
    unreachable: 'تعذّر الوصول إلى خدمة تسجيل الدخول في مؤسستك حاليًا. يُرجى المحاولة مرة أخرى بعد بضع دقائق.',
    misconfigured: 'لم يتم إعداد تسجيل الدخول عبر مؤسستك بشكل صحيح. يُرجى التواصل مع المسؤول.',
    rejected:
      'تعذّر التحقق من الرد الوارد من خدمة تسجيل الدخول في مؤسستك، لذا لم يتم تسجيل دخولك. يُرجى التواصل مع المسؤول.',
    expired: 'انتهت صلاحية عملية تسجيل الدخول هذه أو بدأت في متصفح آخر. ارجع إلى التطبيق وسجّل الدخول مرة أخرى.',
    accountExists:
      'يوجد حساب بهذا البريد الإلكتروني بالفعل، وهو غير مرتبط بتسجيل الدخول عبر مؤسستك. يُرجى التواصل مع المسؤول.',
    emailOutsideDomains:
      'قدّمت خدمة تسجيل الدخول في مؤسستك عنوان بريد إلكتروني خارج نطاقات مؤسستك. يُرجى التواصل مع المسؤول.',
    emailMissing: 'لم تقدّم خدمة تسجيل الدخول في مؤسستك عنوان بريد إلكتروني. يُرجى التواصل مع المسؤول.',
    notApproved: 'لم تتم الموافقة على حسابك بعد.',
    tenantDisabled: 'تسجيل الدخول لمؤسستك معطّل حاليًا.',
  },
  'zh-CN': {
    title: '使用组织账号登录',
    unreachable: '目前无法连接到您所在组织的登录服务。请几分钟后重试。',
    misconfigured: '组织账号登录的配置不正确。请联系您的管理员。',
    rejected: '无法验证您所在组织的登录服务返回的应答，因此未登录。请联系您的管理员。',
    expired: '此次登录已过期，或是在其他浏览器中发起的。请返回应用程序重新登录。',
    accountExists: '使用此电子邮件地址的账号已存在，且未与您所在组织的登录关联。请联系您的管理员。',
    emailOutsideDomains: '您所在组织的登录服务提供的电子邮件地址不属于组织的域名。请联系管理员。',
    emailMissing: '您所在组织的登录服务未提供电子邮件地址。请联系您的管理员。',
    notApproved: '您的账号尚未获得批准。',
    tenantDisabled: '您所在组织的登录目前已停用。',
  },
  'zh-TW': {
    title: '使用組織帳號登入',
    unreachable: '目前無法連線到您所屬組織的登入服務。請幾分鐘後再試一次。',
    misconfigured: '組織帳號登入的設定不正確。請聯絡您的管理員。',
    rejected: '無法驗證您所屬組織的登入服務傳回的回應，因此未登入。請聯絡您的管理員。',
    expired: '這次登入已逾期，或是在其他瀏覽器中開始的。請回到應用程式重新登入。',
    accountExists: '使用此電子郵件地址的帳號已存在，且未與您所屬組織的登入連結。請聯絡您的管理員。',
    emailOutsideDomains: '您所屬組織的登入服務提供的電子郵件地址不在組織的網域內。請聯絡管理員。',
    emailMissing: '您所屬組織的登入服務未提供電子郵件地址。請聯絡您的管理員。',
    notApproved: '您的帳號尚未獲得核准。',
    tenantDisabled: '您所屬組織的登入目前已停用。',
  },
  'pt-BR': {
    title: 'Entrar com sua organização',
    unreachable:
      'Não é possível acessar o serviço de login da sua organização agora. Tente novamente em alguns minutos.',
    misconfigured:
      'O login com sua organização não está configurado corretamente. Entre em contato com o administrador.',
    rejected:
      'Não foi possível verificar a resposta do serviço de login da sua organização, por isso você não entrou. Entre em contato com o administrador.',
    expired: 'Este login expirou ou foi iniciado em outro navegador. Volte ao aplicativo e entre novamente.',
    accountExists:
      'Já existe uma conta com este endereço de e-mail, e ela não está vinculada ao login da sua organização. Entre em contato com o administrador.',
    emailOutsideDomains:
      'O serviço de entrada da sua organização informou um endereço de e-mail fora dos domínios da organização. Fale com o administrador.',
    emailMissing:
      'O serviço de login da sua organização não informou um endereço de e-mail. Entre em contato com o administrador.',
    notApproved: 'Sua conta ainda não foi aprovada.',
    tenantDisabled: 'O login da sua organização está desativado no momento.',
  },
  'de-DE': {
    title: 'Mit Ihrer Organisation anmelden',
    unreachable:
      'Der Anmeldedienst Ihrer Organisation ist gerade nicht erreichbar. Bitte versuchen Sie es in ein paar Minuten erneut.',
    misconfigured:
      'Die Anmeldung mit Ihrer Organisation ist nicht richtig eingerichtet. Bitte wenden Sie sich an Ihre Administration.',
    rejected:
      'Die Antwort des Anmeldedienstes Ihrer Organisation konnte nicht überprüft werden, daher wurden Sie nicht angemeldet. Bitte wenden Sie sich an Ihre Administration.',
    expired:
      'Diese Anmeldung ist abgelaufen oder wurde in einem anderen Browser begonnen. Kehren Sie zur Anwendung zurück und melden Sie sich erneut an.',
    accountExists:
      'Ein Konto mit dieser E-Mail-Adresse existiert bereits und ist nicht mit der Anmeldung Ihrer Organisation verknüpft. Bitte wenden Sie sich an Ihre Administration.',
    emailOutsideDomains:
      'Der Anmeldedienst Ihrer Organisation hat eine E-Mail-Adresse außerhalb der Domains Ihrer Organisation geliefert. Wenden Sie sich an Ihre Administration.',
    emailMissing:
      'Der Anmeldedienst Ihrer Organisation hat keine E-Mail-Adresse übermittelt. Bitte wenden Sie sich an Ihre Administration.',
    notApproved: 'Ihr Konto wurde noch nicht freigegeben.',
    tenantDisabled: 'Die Anmeldung für Ihre Organisation ist derzeit deaktiviert.',
  },
  'it-IT': {
    title: 'Accedi con la tua organizzazione',
    unreachable:
      'Il servizio di accesso della tua organizzazione non è raggiungibile al momento. Riprova tra qualche minuto.',
    misconfigured: "L'accesso con la tua organizzazione non è configurato correttamente. Contatta l'amministratore.",
    rejected:
      "Non è stato possibile verificare la risposta del servizio di accesso della tua organizzazione, quindi non hai effettuato l'accesso. Contatta l'amministratore.",
    expired:
      "Questo accesso è scaduto o è stato avviato in un altro browser. Torna all'applicazione e accedi di nuovo.",
    accountExists:
      "Esiste già un account con questo indirizzo e-mail e non è collegato all'accesso della tua organizzazione. Contatta l'amministratore.",
    emailOutsideDomains:
      "Il servizio di accesso della tua organizzazione ha fornito un indirizzo e-mail esterno ai domini dell'organizzazione. Contatta l'amministratore.",
    emailMissing:
      "Il servizio di accesso della tua organizzazione non ha fornito un indirizzo e-mail. Contatta l'amministratore.",
    notApproved: 'Il tuo account non è ancora stato approvato.',
    tenantDisabled: "L'accesso per la tua organizzazione è attualmente disattivato.",
  },
  ko: {
    title: '조직 계정으로 로그인',
    unreachable: '지금은 조직의 로그인 서비스에 연결할 수 없습니다. 몇 분 후에 다시 시도하세요.',
    misconfigured: '조직 계정 로그인이 올바르게 설정되지 않았습니다. 관리자에게 문의하세요.',
    rejected: '조직 로그인 서비스의 응답을 확인할 수 없어 로그인하지 않았습니다. 관리자에게 문의하세요.',
    expired: '이 로그인은 만료되었거나 다른 브라우저에서 시작되었습니다. 애플리케이션으로 돌아가 다시 로그인하세요.',
    accountExists:
      '이 이메일 주소를 사용하는 계정이 이미 있으며 조직 로그인과 연결되어 있지 않습니다. 관리자에게 문의하세요.',
    emailOutsideDomains: '조직의 로그인 서비스가 조직 도메인 밖의 이메일 주소를 제공했습니다. 관리자에게 문의하세요.',
    emailMissing: '조직의 로그인 서비스가 이메일 주소를 제공하지 않았습니다. 관리자에게 문의하세요.',
    notApproved: '계정이 아직 승인되지 않았습니다.',
    tenantDisabled: '현재 조직의 로그인이 비활성화되어 있습니다.',
  },
  vi: {
    title: 'Đăng nhập bằng tài khoản tổ chức',
    unreachable: 'Hiện không thể kết nối tới dịch vụ đăng nhập của tổ chức bạn. Vui lòng thử lại sau vài phút.',
    misconfigured: 'Đăng nhập bằng tài khoản tổ chức chưa được thiết lập đúng. Vui lòng liên hệ quản trị viên.',
    rejected:
      'Không thể xác minh phản hồi từ dịch vụ đăng nhập của tổ chức bạn nên bạn chưa được đăng nhập. Vui lòng liên hệ quản trị viên.',
    expired:
      'Phiên đăng nhập này đã hết hạn hoặc được bắt đầu trên trình duyệt khác. Hãy quay lại ứng dụng và đăng nhập lại.',
    accountExists:
      'Đã có tài khoản dùng địa chỉ email này và tài khoản đó chưa được liên kết với đăng nhập của tổ chức bạn. Vui lòng liên hệ quản trị viên.',
    emailOutsideDomains:
      'Dịch vụ đăng nhập của tổ chức đã cung cấp một địa chỉ email nằm ngoài các miền của tổ chức. Vui lòng liên hệ quản trị viên.',
    emailMissing: 'Dịch vụ đăng nhập của tổ chức bạn không cung cấp địa chỉ email. Vui lòng liên hệ quản trị viên.',
    notApproved: 'Tài khoản của bạn chưa được phê duyệt.',
    tenantDisabled: 'Đăng nhập cho tổ chức của bạn hiện đang bị tắt.',
  },
});

export type IdpMessage = Exclude<Parameters<typeof idpText>[1], 'title'>;
