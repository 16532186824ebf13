"""IAM reads: the policy documents of an execution role."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import unquote

from tools.triage.data._memo import Memo
from tools.triage.data.iam_model import PolicyDocument


class IamReads(Memo):
    def role_policy_documents(self, role_arn: str) -> tuple[PolicyDocument, ...]:
        """Inline and attached policy documents of an execution role, parsed."""
        role_name = role_arn.rsplit("/", 1)[-1]

        def fetch() -> tuple[PolicyDocument, ...]:
            documents: list[PolicyDocument] = []
            inline = self.access.call("iam", "ListRolePolicies", RoleName=role_name)
            for policy_name in sorted(inline.get("PolicyNames", [])):
                doc = self.access.call(
                    "iam", "GetRolePolicy", RoleName=role_name, PolicyName=policy_name
                ).get("PolicyDocument", {})
                documents.append(_decode_policy(doc))
            attached = self.access.call("iam", "ListAttachedRolePolicies", RoleName=role_name)
            for policy in attached.get("AttachedPolicies", []):
                arn = policy.get("PolicyArn", "")
                meta = self.access.call("iam", "GetPolicy", PolicyArn=arn).get("Policy", {})
                version = self.access.call(
                    "iam", "GetPolicyVersion", PolicyArn=arn, VersionId=meta.get("DefaultVersionId")
                ).get("PolicyVersion", {})
                documents.append(_decode_policy(version.get("Document", {})))
            return tuple(documents)

        return self._once(("role-policies", role_name), fetch)


def _decode_policy(document: Any) -> PolicyDocument:
    """IAM returns policy documents URL-encoded; boto3 usually decodes them already."""
    if isinstance(document, dict):
        return PolicyDocument.from_api(document)
    try:
        decoded: Any = json.loads(unquote(str(document)))
    except ValueError:
        return PolicyDocument.from_api({})
    return PolicyDocument.from_api(decoded)
