"""Who a request is: the tokens each forge accepts, and GitHub App JWTs checked with `openssl`."""
import base64
import json
import os
import secrets
import subprocess
import tempfile


def b64url_decode(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def bearer(headers, *schemes):
    value = headers.get("Authorization", "")
    scheme, _, credential = value.partition(" ")
    if scheme.lower() in schemes and credential.strip():
        return credential.strip()
    return None


class JWTError(Exception):
    pass


def verify_app_jwt(token, public_key_path, app_ids, now):
    """The claims of a GitHub App JWT signed RS256 by the key whose public half is `public_key_path`."""
    parts = token.split(".")
    if len(parts) != 3:
        raise JWTError("A JSON web token could not be decoded")
    try:
        header = json.loads(b64url_decode(parts[0]))
        claims = json.loads(b64url_decode(parts[1]))
        signature = b64url_decode(parts[2])
    except (ValueError, UnicodeDecodeError):
        raise JWTError("A JSON web token could not be decoded")
    if header.get("alg") != "RS256":
        raise JWTError(f"'alg' must be RS256, not {header.get('alg')!r}")
    if not public_key_path:
        raise JWTError("the stand-in was given no app public key (--github-app-public-key)")
    with tempfile.NamedTemporaryFile(delete=False) as file:
        file.write(signature)
    try:
        result = subprocess.run(["openssl", "dgst", "-sha256", "-verify", public_key_path, "-signature", file.name],
                                input=(parts[0] + "." + parts[1]).encode(), capture_output=True)
    finally:
        os.unlink(file.name)
    if result.returncode != 0:
        raise JWTError("A JSON web token could not be decoded")
    iat, exp = claims.get("iat"), claims.get("exp")
    if not isinstance(iat, int):
        raise JWTError("'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued")
    if not isinstance(exp, int):
        raise JWTError("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
    if iat > now + 60:
        raise JWTError("'Issued at' claim ('iat') must be an Integer representing a time in the past")
    if exp <= now:
        raise JWTError("'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires")
    if exp - iat > 600:
        raise JWTError("'Expiration time' claim ('exp') is too far in the future")
    if str(claims.get("iss")) not in {str(app_id) for app_id in app_ids}:
        raise JWTError(f"'Issuer' claim ('iss') must be the app's id, not {claims.get('iss')!r}")
    return claims


def new_installation_token():
    return "ghs_" + secrets.token_hex(18)
