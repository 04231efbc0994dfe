"""roles layer: Planner, CodeInterpreter, translator, verification, prompts (docs/architecture.md).
`__all__` is the layer's public API."""

from twnb.roles.code_interpreter import CodeInterpreter
from twnb.roles.kernel_state_text import without_kernel_state
from twnb.roles.planner import Planner
from twnb.roles.planner_prompt import Worker
from twnb.roles.response_schema import ResponseFormatChoice
from twnb.roles.risk_grades import GRADES, GRADES_BY_KEY, Grade, RiskFinding, RiskPlace, grade_code
from twnb.roles.role import ReplyCutShort, RoleFailure
from twnb.roles.role_setup import CodeLimits, RoleBrief, RoleLimits, RoleSurroundings
from twnb.roles.taskweaver_verification import (
    TASKWEAVER_ALLOWED_MODULES,
    TASKWEAVER_BLOCKED_FUNCTIONS,
    TaskWeaverRules,
)
from twnb.roles.translator import PostTranslator
from twnb.roles.verification import (
    DEFAULT_ALLOWED_MODULES,
    DEFAULT_BLOCKED_FUNCTIONS,
    VerificationConfig,
    allowable_modules,
    verify_code,
)

__all__ = [
    "DEFAULT_ALLOWED_MODULES",
    "DEFAULT_BLOCKED_FUNCTIONS",
    "GRADES",
    "GRADES_BY_KEY",
    "TASKWEAVER_ALLOWED_MODULES",
    "TASKWEAVER_BLOCKED_FUNCTIONS",
    "CodeInterpreter",
    "CodeLimits",
    "Grade",
    "Planner",
    "PostTranslator",
    "ReplyCutShort",
    "ResponseFormatChoice",
    "RiskFinding",
    "RiskPlace",
    "RoleBrief",
    "RoleFailure",
    "RoleLimits",
    "RoleSurroundings",
    "TaskWeaverRules",
    "VerificationConfig",
    "Worker",
    "allowable_modules",
    "grade_code",
    "verify_code",
    "without_kernel_state",
]
