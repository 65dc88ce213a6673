"""The authorization server (django-oauth-toolkit's views, the consent page ours), under the names its
metadata documents reverse: the well-known documents at the site's root, the endpoints under /oauth/."""

from django.urls import path
from oauth2_provider import views as oauth

from agents_mcp.views import (ClientRegistrationManagementView, ClientRegistrationView, ConsentView,
                              PortalRevokeTokenView, PortalTokenView)

app_name = "oauth2_provider"

urlpatterns = [
    path(".well-known/oauth-authorization-server", oauth.OAuthServerMetadataView.as_view(),
         name="oauth-server-metadata"),
    path(".well-known/oauth-protected-resource", oauth.OAuthProtectedResourceMetadataView.as_view(),
         name="oauth-resource-metadata"),
    path(".well-known/oauth-protected-resource/<path:resource_path>",
         oauth.OAuthProtectedResourceMetadataView.as_view(), name="oauth-resource-metadata-path"),
    path("oauth/authorize/", ConsentView.as_view(), name="authorize"),
    path("oauth/token/", PortalTokenView.as_view(), name="token"),
    path("oauth/revoke_token/", PortalRevokeTokenView.as_view(), name="revoke-token"),
    path("oauth/register/", ClientRegistrationView.as_view(), name="dcr-register"),
    path("oauth/register/<str:client_id>/", ClientRegistrationManagementView.as_view(),
         name="dcr-register-management"),
]
