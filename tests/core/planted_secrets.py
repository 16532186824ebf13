"""A corpus of planted secrets: one kind per entry, as each would appear in cluster text (a
status message, a log line, probe output, a Kubernetes event), in English and Chinese.

`secret` is the part that must never reach an output; the rest of `text` is context. The
values are made up (random-looking, the documented AWS examples' shapes).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Planted:
    kind: str
    text: str
    secret: str


SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # 40 characters
SESSION_TOKEN = (
    "IQoJb3JpZ2luX2VjEHoaCXVzLXdlc3QtMiJHMEUCIQDq9v7Rk2ZpWJrmPB6vNnR0xk4YsK1cR8aQeW5tZfLm"
    "PgIgVb1sT0aGqNn4cXbYpH3u2R5eKLmJq9wXy7sUd1Zr8C0qnQIIu//////////ARABGgw2MDk4NTU4MTg0"
)
OLD_SESSION_TOKEN = "FwoGZXIvYXdzEBMaDKm3pQxT7Yh0iN2sRyKGAU0ePqH7cXk9Lm2vRbT4nYwZs8Jd"
JWT = (
    "eyJhbGciOiJSUzI1NiIsImtpZCI6IkRlZkpXVCJ9.eyJpc3MiOiJrdWJlcm5ldGVzL3NlcnZpY2VhY2NvdW50In0"
    ".Qm9ndXNTaWduYXR1cmVGb3JUZXN0c09ubHkxMjM0NTY3ODkw"
)
PEM_BODY = (
    "MIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
    "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n"
    "LxoS2tFczGkPLPgizskuemMghRniWaoLcyehkd3qqGElvW/VDL5AaWTg0nLVkjRo\n"
)
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}-----END RSA PRIVATE KEY-----"
OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\n"
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n"
    "QyNTUxOQAAACBdQ2ZkR3hYc1pLbFZ4T0x3cE9jWmV4ZkN5d0JzTnZ0YWQAAAAJc2VjcmV0\n"
    "-----END OPENSSH PRIVATE KEY-----"
)
BASE64_PEM = (
    "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JSUV2UUlCQURBTkJna3Foa2lHOXcwQkFRRUZBQVND"
    "Qktjd2dnU2pBZ0VBQW9JQkFRQzd="
)

PLANTED: tuple[Planted, ...] = (
    # -- AWS credentials ----------------------------------------------------------------
    Planted("access-key-id", "curl failed with key AKIAIOSFODNN7QWERTYZ", "AKIAIOSFODNN7QWERTYZ"),
    Planted("temporary-key-id", "using ASIAY34FZKBOKMUTVV7A for s3", "ASIAY34FZKBOKMUTVV7A"),
    Planted("bare-secret-key", f"credentials: AKIA... {SECRET_KEY} us-west-2", SECRET_KEY),
    Planted("bare-secret-key-line", f"{SECRET_KEY}\n", SECRET_KEY),
    Planted("secret-key-env", f"export AWS_SECRET_ACCESS_KEY={SECRET_KEY}", SECRET_KEY),
    Planted(
        "secret-key-ini", "aws_secret_access_key = Zx9Qm2Lk7Vb3Nc8Rt1Yh", "Zx9Qm2Lk7Vb3Nc8Rt1Yh"
    ),
    Planted("session-token-bare", f"token {SESSION_TOKEN} expired", SESSION_TOKEN[:40]),
    Planted("session-token-old", f"sts answered {OLD_SESSION_TOKEN}", OLD_SESSION_TOKEN[:30]),
    Planted(
        "presigned-url",
        "GET https://b.s3.amazonaws.com/k?X-Amz-Security-Token=IQoJb3JpZ2lu%2FAbc9xYz&X-Amz-Date=1",
        "IQoJb3JpZ2lu%2FAbc9xYz",
    ),
    Planted("session-token-env", "AWS_SESSION_TOKEN=IQoJb3JpZ2luX2VjEHoaCXVz", "IQoJb3JpZ2lu"),
    Planted(
        "json-credentials",
        '{"AccessKeyId": "x", "SecretAccessKey": "Kq8vZ2mR5tLp0wXy", "Token": "Ab12Cd34Ef"}',
        "Kq8vZ2mR5tLp0wXy",
    ),
    Planted("escaped-json", 'echo {\\"password\\": \\"Tr0ub4dor&3\\"}', "Tr0ub4dor&3"),
    Planted(
        "aws-configure",
        "aws configure set aws_secret_access_key Lm3Np7Qr2St6Uv0Wx",
        "Lm3Np7Qr2St6Uv0Wx",
    ),
    Planted("eks-token", "token k8s-aws-v1.aHR0cHM6Ly9zdHMuYW1hem9uYXdz", "aHR0cHM6Ly9zdHMu"),
    Planted(
        "tag-cli",
        "aws ec2 create-tags --tags Key=db_password,Value=Pl4ntedTagValue",
        "Pl4ntedTagValue",
    ),
    Planted(
        "tag-json",
        '"Tags": [{"Key": "api-token", "Value": "Tg7Vx2Qp9Lm4"}]',
        "Tg7Vx2Qp9Lm4",
    ),
    # -- environment and configuration ----------------------------------------------------
    Planted("password-env", "DB_PASSWORD=hunter2xyz", "hunter2xyz"),
    Planted("password-inside-name", "MYSQL_ROOT_PASSWORD_PROD=R00tPw!x", "R00tPw!x"),
    Planted("client-secret", "client_secret = 'c1i3nt s3cr3t'", "c1i3nt s3cr3t"),
    Planted("key-variable", "OPENAI_KEY=opk9Xm2Lq7Vt", "opk9Xm2Lq7Vt"),
    Planted("pat-variable", "GITLAB_PAT=pat9Zk3Wm8Qv", "pat9Zk3Wm8Qv"),
    Planted("token-variable", "HF_TOKEN=tok4Nq8Rp2Zx", "tok4Nq8Rp2Zx"),
    Planted("secret-variable", "WEBHOOK_SECRET=whs7Jk2Lp5Qr", "whs7Jk2Lp5Qr"),
    Planted("yaml-password", "  db_password: Yp4ssW0rd9", "Yp4ssW0rd9"),
    Planted("yaml-bare-password", "password: Br4reP4ss", "Br4reP4ss"),
    Planted(
        "docker-auth", '{"auths": {"reg.example": {"auth": "dXNlcjpEb2NrM3JQYXNz"}}}', "dXNlcjpE"
    ),
    Planted(
        "env-pair-json",
        '{"name": "WANDB_API_KEY", "value": "wb0123abcdXYZ"}',
        "wb0123abcdXYZ",
    ),
    # -- command lines ----------------------------------------------------------------------
    Planted("password-flag", "mysql --password hunter3abc -h db", "hunter3abc"),
    Planted("password-flag-equals", "psql --password=Pg5ql!Pw", "Pg5ql!Pw"),
    Planted("db-pass-flag", "migrate --db-pass Mg8Rt3Pw --host db", "Mg8Rt3Pw"),
    Planted("token-flag", "helm repo add x --token=Hl7mTk9Q", "Hl7mTk9Q"),
    Planted("mysql-p", "mysql -u root -pMy5qlR00t mydb", "My5qlR00t"),
    Planted(
        "docker-login", "docker login -u AWS -p eyJwYXlsb2FkIjoiYWJj https://x", "eyJwYXlsb2Fk"
    ),
    Planted("sshpass", "sshpass -p Ss7hP4ss ssh ubuntu@host", "Ss7hP4ss"),
    Planted("curl-user", "curl -u alice:Cu7lP4ss https://api.example", "Cu7lP4ss"),
    Planted("curl-user-equals", "curl --user=bob:Bo8Pw3x https://api", "Bo8Pw3x"),
    Planted("url-credentials", "git clone https://user:Ur1P4ss@github.com/org/repo", "Ur1P4ss"),
    Planted("db-url", "DATABASE_URL postgres://app:Pg9Url5x@db:5432/app", "Pg9Url5x"),
    # -- HTTP authentication -----------------------------------------------------------------
    Planted("authorization-bearer", "Authorization: Bearer abcdefghijklmnop", "abcdefghijklmnop"),
    Planted("bearer-bare", "sent Bearer Br3rT0k3nXyz12 to the API", "Br3rT0k3nXyz12"),
    Planted("basic-bare", "header Basic dXNlcjpzM2NyM3Q= rejected", "dXNlcjpzM2NyM3Q="),
    Planted("jwt", f"service account token {JWT}", JWT[40:80]),
    # -- vendor tokens ------------------------------------------------------------------------
    Planted("hugging-face", "hf_abcdefghijklmnopqrstuv used", "hf_abcdefghijklmnop"),
    Planted(
        "github-pat", "https://ghp_abcdefghijklmnopqrstuvwxyz012345@github.com/x", "ghp_abcdefgh"
    ),
    Planted(
        "github-fine-grained",
        "github_pat_11ABCDEFG0abcdefghijkl_mnopqrstuv",
        "github_pat_11ABCDEFG0",
    ),
    Planted("gitlab", "glpat-Ab3dEf6hIj9kLm2nOp5q", "glpat-Ab3dEf6h"),
    Planted("slack", "xoxb-123456789012-abcdefghijklmnop", "xoxb-123456789012-abc"),
    Planted("anthropic", "sk-ant-api03-abcdefghijklmnopqrstu", "sk-ant-api03"),
    Planted("openai", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8t", "sk-proj-Ab3dEf6h"),
    Planted("google", "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q", "AIzaSyA1b2C3d4E5"),
    Planted("stripe", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "sk_live_4eC39HqL"),
    Planted("npm", "npm_Ab3dEf6hIj9kLm2nOp5qRs8tUv", "npm_Ab3dEf6h"),
    # -- prose ---------------------------------------------------------------------------------
    Planted("prose-en", "the admin password is Pr0seP4ss, please rotate", "Pr0seP4ss"),
    Planted("prose-en-quoted", "Password was set to 'Qu0t3dPw' by the script", "Qu0t3dPw"),
    Planted("prose-zh", "数据库密码是Zh1MiMa88，请勿外传", "Zh1MiMa88"),
    Planted("prose-zh-colon", "管理员口令：Kl9Ling7", "Kl9Ling7"),
    Planted("prose-zh-token", "访问令牌为 Lp2LingPai9", "Lp2LingPai9"),
    # -- private keys --------------------------------------------------------------------------
    Planted("pem-complete", f"key follows\n{PEM}\nend", "u1SU1LfVLPHCozMx"),
    Planted("openssh", OPENSSH, "b3BlbnNzaC1rZXktdjEAAAAA"),
    Planted(
        "pem-cut-before-end",
        "Termination reason: lifecycle failed: -----BEGIN RSA PRIVATE KEY-----\n" + PEM_BODY[:100],
        PEM_BODY[10:40],
    ),
    Planted(
        "pem-tail-from-body",
        PEM_BODY[70:] + "-----END RSA PRIVATE KEY-----\nnext line",
        PEM_BODY[80:110],
    ),
    Planted("pem-body-only", "tail:\n" + PEM_BODY[65:], PEM_BODY[70:100]),
    Planted("pem-marker-cut", "message: -----BEGIN RSA PRIV", "BEGIN RSA PRIV"),
    Planted("base64-pem", f"tls.key: {BASE64_PEM}", BASE64_PEM[20:60]),
    # -- cluster services (issue 22) -----------------------------------------------------------
    Planted(
        "kube-bootstrap-join",
        "kubeadm join 10.1.2.3:6443 --token k7x2qp.9f8e7d6c5b4a3z2y --discovery-token-ca-cert-hash "
        "sha256:0f1e",
        "9f8e7d6c5b4a3z2y",
    ),
    Planted(
        "kube-bootstrap-bare", "bootstrap token q1w2e3.a9s8d7f6g5h4j3k2 expired", "a9s8d7f6g5h4j3k2"
    ),
    Planted("sssd-authtok", "ldap_default_authtok = Ld4pB1ndPw!", "Ld4pB1ndPw!"),
    Planted("slurm-db-pw", "export SLURM_DB_PW=Sl9rmDbP4ss", "Sl9rmDbP4ss"),
    Planted("slurmdbd-storagepass", "StoragePass=St0r4geP4ss", "St0r4geP4ss"),
    Planted("htpasswd-b", "htpasswd -b /etc/nginx/.htpasswd grafana Htp4sswdPw", "Htp4sswdPw"),
    Planted("htpasswd-nb", "htpasswd -nbB admin Htn8PassWd > users", "Htn8PassWd"),
    Planted("htpasswd-in-code", "`htpasswd -b /etc/.htpasswd ops Htc0dePw!`", "Htc0dePw!"),
    Planted("chpasswd", "echo 'ubuntu:Chp4sswdPw' | sudo chpasswd", "Chp4sswdPw"),
    Planted("chpasswd-blank", 'echo "root:Chp4ss W0rd" | chpasswd', "Chp4ss W0rd"),
    Planted("chpasswd-here-string", "chpasswd <<< 'root:Chh3reStr1ng'", "Chh3reStr1ng"),
    Planted("curl-cookie", "curl --cookie 'sessionid=Ck9f8e7d6c5b4a' https://h", "Ck9f8e7d6c5b4a"),
    Planted("curl-b", "curl -s -b sessionid=Cb7a6b5c4d3e https://h", "Cb7a6b5c4d3e"),
    Planted(
        "slack-webhook",
        "posting to https://hooks.slack.com/services/T0A1B2C3D/B4E5F6G7H/x9Y8z7W6v5U4t3S2r1Q0",
        "x9Y8z7W6v5U4t3S2r1Q0",
    ),
    Planted(
        "azure-account-key",
        "DefaultEndpointsProtocol=https;AccountName=ckpt;AccountKey=QXp1cmVLZXkxMjM0NTY3ODkw+/abc==;"
        "EndpointSuffix=core.windows.net",
        "QXp1cmVLZXkxMjM0NTY3",
    ),
    Planted(
        "cookie-header", "request header Cookie: session=C00k1eS3ss10n; theme=dark", "C00k1eS3ss10n"
    ),
    Planted("set-cookie", "Set-Cookie: AWSALB=S3tC00k13Val; Path=/; HttpOnly", "S3tC00k13Val"),
)

# Ordinary cluster text that must come back unchanged (the price of each rule).
KEPT: tuple[str, ...] = (
    "commit 3f786850e387550fdab836ed7e6dc881de23001b fixed the driver",
    "sha256 digest e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "NCCL WARN Timeout after 1800 seconds",
    "the password is incorrect",
    "Password was set to expired by policy",
    "密码错误，请重试",
    "密码是错误的",
    "Bearer authentication failed",
    "Basic auth complete",
    "docker run -u 1000:1000 image",
    "mysql -P 3306 -h db",
    "tokenizer: loaded; max_tokens=100; token_expiry: 2026-01-01",
    "KMS_KEY_ID=arn:aws:kms:us-west-2:111122223333:key/abcd",
    "path /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so",
    "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
    "Lifecycle scripts completed successfully on i-0123456789abcdef0",
    "failed to get token: connection refused",
    # near the issue-22 kinds, and not secrets
    "resolved worker.abcdefghijklmnop to 10.1.2.3",
    "loaded config.yaml and values.yaml from s3",
    "ldap_default_authtok_type = password",
    "StorageHost=slurmdb StorageUser=slurm StoragePort=3306",
    "htpasswd -c /etc/nginx/.htpasswd admin",
    "echo 10:30 | grep started",
    "the cookie jar is empty; cookies disabled",
    "see https://api.slack.com/messaging/webhooks for the format",
    "AccountName=ckpt;EndpointSuffix=core.windows.net",
)
