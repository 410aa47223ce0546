"""Errors of the Label Studio round trips, each saying what to do next."""

from __future__ import annotations

from irforge.core.errors import IrforgeError


class AnnotationError(IrforgeError):
    """A Label Studio round trip failed for a reason the user can fix."""


class ServerUnreachable(AnnotationError):
    """No Label Studio answers at the configured URL."""


class AuthenticationFailed(AnnotationError):
    """Label Studio rejected the API token."""


class ProjectNotFound(AnnotationError):
    """The project id does not exist on this server."""


class ExportError(AnnotationError):
    """An export could not be produced, downloaded or read."""
