// Passkeys in the page (progressive enhancement: without JavaScript, or without WebAuthn,
// the password form works as it always did). Two places:
// - the login page and the second step's ([data-passkey-login]): the button appears; it asks
//   the options (/auth/passkey/options, /auth/2fa/passkey/options), lets the browser sign
//   with a passkey, posts the answer (/auth/passkey, /auth/2fa/passkey) and goes where the
//   answer says. On the login page ([data-autofill]), where the browser offers passkeys
//   in the address field's suggestions (conditional mediation, the field's autocomplete
//   «username webauthn»), a request waits for that choice; its challenge lives 5 minutes,
//   so it is renewed a few times while the page stays open. The button's own request
//   replaces it (the library aborts the waiting one);
// - the profile ([data-passkeys]): the addition form appears; it asks the creation options
//   with the current password, lets the browser create the passkey, posts it with its name,
//   then shows the page again with the new passkey listed.
// The browser half of the ceremonies is @simplewebauthn/browser (SimpleWebAuthnBrowser,
// loaded before this file).
(function () {
  'use strict';
  var lib = window.SimpleWebAuthnBrowser;
  var supported = Boolean(lib && window.PublicKeyCredential && lib.browserSupportsWebAuthn());

  function say(node, message) {
    if (!node) return;
    node.textContent = message || '';
    node.hidden = !message;
  }

  function postJson(url, body, headers) {
    var all = { 'Content-Type': 'application/json', Accept: 'application/json' };
    Object.keys(headers || {}).forEach(function (name) {
      all[name] = headers[name];
    });
    return fetch(url, { method: 'POST', credentials: 'same-origin', headers: all, body: JSON.stringify(body) }).then(function (response) {
      return response.json().then(
        function (data) {
          return { ok: response.ok, status: response.status, data: data || {} };
        },
        function () {
          return { ok: response.ok, status: response.status, data: {} };
        },
      );
    });
  }

  /** The refusal's own message, or a word on what the browser said. */
  function problemOf(result, fallback) {
    return (result && result.data && (result.data.error || result.data.message)) || fallback;
  }

  function ceremonyProblem(error) {
    if (error && error.name === 'NotAllowedError') return 'L’opération a été annulée ou le délai est dépassé.';
    if (error && error.name === 'InvalidStateError') return 'Cette clé d’accès est déjà enregistrée pour ce compte.';
    return 'Le navigateur n’a pas pu utiliser de clé d’accès.';
  }

  // A waiting autofill request is renewed at most this many times (every 4.5 minutes).
  var AUTOFILL_RENEWALS = 6;
  var AUTOFILL_RENEW_MS = 270000;

  function enhanceLogin(box) {
    if (!supported) return;
    var form = document.querySelector('form.auth-form[action="' + box.getAttribute('data-form') + '"]');
    var csrf = form && form.querySelector('input[name="_csrf"]');
    var button = box.querySelector('[data-passkey-start]');
    var problem = box.querySelector('[data-passkey-error]');
    if (!csrf || !button) return;
    box.hidden = false;
    var headers = { 'X-CSRF-Token': csrf.value };
    var renewal = null;
    var renewals = 0;

    // One ceremony: the options, the browser's signature, the answer, then where it leads.
    function signIn(autofill) {
      return postJson(box.getAttribute('data-options'), {}, headers)
        .then(function (options) {
          if (!options.ok) throw new Error(problemOf(options, 'La connexion par clé d’accès est indisponible.'));
          if (autofill) {
            renewal = window.setTimeout(function () {
              if (renewals++ < AUTOFILL_RENEWALS) armAutofill();
            }, AUTOFILL_RENEW_MS);
          }
          return lib.startAuthentication({ optionsJSON: options.data, useBrowserAutofill: autofill }).then(
            function (response) {
              window.clearTimeout(renewal);
              return postJson(box.getAttribute('data-answer'), { response: response }, headers);
            },
            function (error) {
              if (autofill) error.autofill = true;
              throw error.autofill ? error : new Error(ceremonyProblem(error));
            },
          );
        })
        .then(function (answer) {
          if (!answer.ok) throw new Error(problemOf(answer, 'Cette clé d’accès n’a pas permis la connexion.'));
          window.location.assign(answer.data.redirect || '/account');
        });
    }

    function armAutofill() {
      // An aborted or refused waiting request says nothing: the person may type a password.
      signIn(true).catch(function (error) {
        if (!error.autofill) say(problem, error.message);
      });
    }

    if (box.hasAttribute('data-autofill') && lib.browserSupportsWebAuthnAutofill) {
      lib.browserSupportsWebAuthnAutofill().then(function (yes) {
        if (yes) armAutofill();
      });
    }

    button.addEventListener('click', function () {
      window.clearTimeout(renewal);
      button.disabled = true;
      say(problem, '');
      signIn(false).catch(function (error) {
        say(problem, error.message);
        button.disabled = false;
      });
    });
  }

  function enhanceProfile(section) {
    var form = section.querySelector('[data-passkey-add]');
    if (!form) return;
    if (!supported) {
      say(section.querySelector('[data-passkey-unsupported]'), section.querySelector('[data-passkey-unsupported]').textContent);
      return;
    }
    var problem = form.querySelector('[data-passkey-error]');
    var button = form.querySelector('button[type="submit"]');
    form.hidden = false;
    form.addEventListener('submit', function (event) {
      event.preventDefault();
      var name = form.elements.name.value.trim();
      var password = form.elements.current_password.value;
      if (!name) return say(problem, 'La clé a besoin d’un nom (par exemple : Téléphone).');
      if (!password) return say(problem, 'Le mot de passe actuel est nécessaire pour ajouter une clé.');
      button.disabled = true;
      say(problem, '');
      postJson('/app/api/users/profile/passkeys/options', { current_password: password })
        .then(function (options) {
          if (!options.ok) throw new Error(problemOf(options, 'L’ajout d’une clé d’accès est indisponible.'));
          return lib.startRegistration({ optionsJSON: options.data }).then(
            function (response) {
              return postJson('/app/api/users/profile/passkeys', { name: name, response: response });
            },
            function (error) {
              throw new Error(ceremonyProblem(error));
            },
          );
        })
        .then(function (added) {
          if (!added.ok) throw new Error(problemOf(added, 'La clé d’accès n’a pas pu être ajoutée.'));
          window.location.assign(window.location.pathname);
        })
        .catch(function (error) {
          form.elements.current_password.value = '';
          say(problem, error.message);
          button.disabled = false;
        });
    });
  }

  var login = document.querySelector('[data-passkey-login]');
  if (login) enhanceLogin(login);
  var profile = document.querySelector('[data-passkeys]');
  if (profile) enhanceProfile(profile);
})();
