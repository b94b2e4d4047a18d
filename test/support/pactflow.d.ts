// The types of PactFlow's engine as consumer-docs.ts uses it (the package ships none): `SwaggerMockValidatorFactory`
// makes a validator whose `validate` checks a pact file against an OpenAPI document (its README, "Usage").
declare module '@pactflow/swagger-mock-validator' {
  interface ValidationResult {
    code: string;
    message: string;
    type: 'error' | 'warning';
  }
  interface ValidationOutcome {
    success: boolean;
    errors: ValidationResult[];
    warnings: ValidationResult[];
    failureReason?: string;
  }
  export const SwaggerMockValidatorFactory: {
    create(auth?: string): { validate(options: { specPathOrUrl: string; mockPathOrUrl: string; additionalPropertiesInResponse?: string; requiredPropertiesInResponse?: string }): Promise<ValidationOutcome> };
  };
}
